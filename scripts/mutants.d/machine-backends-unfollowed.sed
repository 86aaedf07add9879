# machine: the watch does not follow the system under test's connections at its readings: a services host or database process it connected to after the drive looked counts as other processes'
# kill: ./driver/machine TestBackendOfTheFoundServerIsOwn
# file: driver/machine/machine.go
# expect: is not among the own processes
s#	s.followed = sut.Follow(w.cfg.Root, w.cfg.Self, w.roots)#	s.followed = nil#
