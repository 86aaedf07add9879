# sut: Follow does not follow connections into the system under test: the order processors consuming from its broker count as other processes
# kill: ./driver/sut TestFollow
# file: driver/sut/backends.go
# expect: followed from the driver
s#peers\[peer.inode\] = dest{net.JoinHostPort(k.ip.String(), strconv.Itoa(k.port)), pid, RoleClient, false, k.port}#_ = peer#
