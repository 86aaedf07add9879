# a secret file the group can read (0640) is accepted
# kill: ./internal/secretfile TestReadRefusesOthersFiles
# file: internal/secretfile/secretfile.go
# expect: 0640
s#fi.Mode().Perm()&0o077 != 0#fi.Mode().Perm()\&0o007 != 0#
