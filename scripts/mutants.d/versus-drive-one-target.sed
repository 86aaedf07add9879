# drive --versus: every trial drives A's target (B's never gets load)
# kill: ./cmd/tradebench TestDriveVersusTargets
# file: cmd/tradebench/drive.go
# expect: want both driven|target
s#c.Target = targets\[k\]#c.Target = targets[0]#
