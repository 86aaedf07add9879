# sut: Follow does not follow connections into the system under test: the order processors consuming from its broker count as other processes
# kill: ./driver/sut TestFollow
# file: driver/sut/backends.go
# expect: followed from the driver
s#peers\[peer.Inode\] = dest{net.JoinHostPort(k.IP.String(), strconv.Itoa(k.Port)), pid, RoleClient, false, k.Port}#_ = peer#
