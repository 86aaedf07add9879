# sut: Follow skips every client of the found server, not only those on the port the driver drives: the order processors consuming from the found server's broker port count as other processes
# kill: ./driver/sut TestFollow
# file: driver/sut/backends.go
# expect: followed from the driver
s#if d.role == RoleClient \&\& f.front\[d.from\] \&\& f.driven\[d.port\] {#if d.role == RoleClient \&\& f.front[d.from] {#
