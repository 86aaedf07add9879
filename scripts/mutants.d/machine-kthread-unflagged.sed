# machine: kernel threads not recognised (neither PF_KTHREAD nor kthreadd's children): a kworker is a neighbour
# kill: ./driver/machine TestMeasure|TestKernelThreadsOnThisMachine
# file: driver/sut/proc.go
# expect: is not a kernel thread|not flagged a kernel thread
s#return s.Flags&pfKThread != 0 || pid == 2 || s.PPID == 2#return false#
