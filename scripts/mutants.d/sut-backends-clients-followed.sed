# sut: Follow takes the clients of the system under test for its backends: the front's clients (a neighbour driving the same server) are counted, and another user's too
# kill: ./driver/sut TestFollow
# file: driver/sut/backends.go
# expect: followed from the driver
s#pid, RoleClient, false, k.Port}#pid, RoleBackend, false, k.Port}#
