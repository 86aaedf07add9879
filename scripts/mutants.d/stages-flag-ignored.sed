# --stages is parsed but the phases are left as they were (the default users and duration)
# kill: ./cmd/tradebench TestStagesFlag
# file: cmd/tradebench/drive.go
# expect: want the profile
s#^\tcfg.Phases = cfg.Phases.Staged(st)#\t_ = st#
