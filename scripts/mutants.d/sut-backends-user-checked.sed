# sut: the processes serving the system under test's connections held to the driver's user: the database's backends (run as postgres) count as neighbours of a driver run as root
# kill: ./driver/machine TestEmbeddedDatabaseBackendsAreOwn
# file: driver/sut/backends.go
# expect: is not among the own processes as its backend
s#if d.role != RoleBackend {#if true {#
