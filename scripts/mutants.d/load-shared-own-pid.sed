# run rules: an embedded run (the server at the driver's own PID) judged on the driver's CPU
# kill: ./driver/load TestSharedWithSUTWhenServerIsThisProcess
# file: driver/load/load.go
# expect: not marked as shared
s#src.PID() == os.Getpid()#src.PID() == -os.Getpid()#
