# a request that must not be sent twice (a POST) is resent after its connection broke unanswered
# kill: ./internal/httpc TestPostIsNotReplayedWhenTheServerClosesWithoutAnswer
# file: internal/httpc/httpc.go
# expect: dropped unanswered succeeded|want 1 on 1
s#if reused && replayable && !got#if reused \&\& !got#
