# sut: FindListeners matches no process's descriptor: the server on a loopback target's port is never found (its CPU counts as other processes')
# kill: ./driver/sut TestFindListeners|TestFindListenersFakeProc
# file: internal/procfs/net.go
# expect: found|not found
s#if inodes\[l\] \&\& #if false \&\& inodes[l] \&\& #
