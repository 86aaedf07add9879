# sut: a listening socket held by another user's process (descriptors not readable) is reported as held by no process on this machine: the user is not told why
# kill: ./driver/sut TestFindListenersAnotherUsersProcess|TestFindListenersFakeProc
# file: driver/sut/listen.go
# expect: as another user|held by an unreadable process
s#		if unreadable > 0 {#		if false \&\& unreadable > 0 {#
