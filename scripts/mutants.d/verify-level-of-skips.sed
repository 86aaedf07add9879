# a level whose checks were all skipped counts as passed
# kill: ./report TestVerificationJudge
# file: report/verification.go
# expect: a level of skips and a failure
s#v\.Levels\[i\]\.Outcome = CheckSkip#_ = i#
