# machine: the driver's own process is not followed as the system under test when the server runs in it: the embedded main job's PostgreSQL backends count as neighbours and no capacity on PostgreSQL is valid
# kill: ./driver/machine TestEmbeddedDatabaseBackendsAreOwn
# file: driver/machine/machine.go
# expect: is not among the own processes as its backend
s#^			w.roots = append(w.roots, s.PID())$#			if s.PID() != cfg.Self { w.roots = append(w.roots, s.PID()) }#
