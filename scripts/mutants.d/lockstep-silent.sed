# defaults: users in lock-step never warned about
# kill: ./driver TestLockStepWarned
# file: driver/rampup.go
s#if p.Rate > 0 || p.Users < 2#if true || p.Users < 2#
