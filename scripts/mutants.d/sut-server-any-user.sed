# sut: FindServer never checks the server's user: a driver run as root counts another user's server as its system under test
# kill: ./driver/sut TestFindServerAnotherUsers
# file: driver/sut/listen.go
# expect: want it foreign
s#case !anyUser \&\& u != uid:#case false \&\& !anyUser \&\& u != uid:#
