# the network fault's control socket keeps the umask's mode: anyone who may connect can cut the test bed's network
# kill: ./cmd/tradebench TestNetfaultControlSocketIsTheOwners
# file: cmd/tradebench/netfault.go
# expect: want 0600
s#os.Chmod(\*control, 0o600)#os.Chmod(*control, 0o755)#
