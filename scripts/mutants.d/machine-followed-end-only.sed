# machine: the processes serving the system under test's connections taken from the window's end reading only: a database backend whose connection closed within the window counts as a neighbour
# kill: ./driver/machine TestFollowedAtEitherReading
# file: driver/machine/machine.go
# expect: the backend is not among the own processes
s#for _, l := range append(a.followed, b.followed...) {#for _, l := range b.followed {#
