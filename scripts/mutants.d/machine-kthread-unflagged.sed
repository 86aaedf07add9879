# machine: kernel threads not recognised (PF_KTHREAD ignored): a kworker is a neighbour
# kill: ./driver/machine TestMeasure|TestKernelThreadsOnThisMachine
# file: internal/procfs/stat.go
# expect: is not a kernel thread|not flagged a kernel thread
s#return s.Flags&pfKThread != 0$#return false#
