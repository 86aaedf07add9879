# the client does not look whether the server closed an idle connection before a POST goes out
# kill: ./internal/httpc TestPostAfterIdleCloseUsesANewConnection
# file: internal/httpc/httpc.go
# expect: POST after an idle close
s#if reused && !replayable && peerClosed(c.conn) {#if false \&\& reused \&\& !replayable \&\& peerClosed(c.conn) {#
