# disclosure: the command recorded with the binary's path (/tmp/go-build…/exe/tradebench under go run)
# kill: ./driver/disclose TestCommandAsTyped
# file: driver/disclose/disclose.go
s#^\t\tout\[0\] = "tradebench"$#\t\t_ = out#
