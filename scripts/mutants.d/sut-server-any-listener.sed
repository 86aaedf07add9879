# sut: FindServer counts every listener on the target's port: a neighbour binding [::]:PORT with IPV6_V6ONLY, which serves none of the driver's connections, poses as the system under test
# kill: ./driver/sut TestFindServerNotAListener
# file: driver/sut/listen.go
# expect: want the server
s#case !slices.Contains(serving, l.PID):#case false:#
