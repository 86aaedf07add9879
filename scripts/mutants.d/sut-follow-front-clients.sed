# sut: Follow counts the front's clients on the port the driver drives: a neighbour driving the same server (or a second drive) is counted as the system under test
# kill: ./driver/sut TestFollow
# file: driver/sut/backends.go
# expect: followed from the driver
s#if d.role == RoleClient \&\& f.front\[d.from\] \&\& f.driven\[d.port\] {#if d.role == RoleClient \&\& f.front[d.from] \&\& f.driven[d.port] \&\& false {#
