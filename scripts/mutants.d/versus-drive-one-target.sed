# drive --versus: every trial drives A's target (B's never gets load)
# kill: ./cmd/tradebench TestDriveVersusTargets
# file: cmd/tradebench/drive.go
# expect: want both driven|target
s#c.Repeat, c.Label, c.Target = 1, labels\[k\], targets\[k\]#c.Repeat, c.Label, c.Target = 1, labels[k], targets[0]#
