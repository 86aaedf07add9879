# sut: kernel threads told by "pid 2 or its children" besides PF_KTHREAD: a user's burner that is pid 2 in a PID namespace (unshare -fp) is listed as the kernel's, not other processes'
# kill: ./internal/procfs TestKernelThreadByFlagAlone
# file: internal/procfs/stat.go
# expect: kernel thread true
s#return s.Flags&pfKThread != 0$#return s.Flags\&pfKThread != 0 || s.PPID == 2 || s.PPID == 0#
