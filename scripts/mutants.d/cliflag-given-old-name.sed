# flags: a flag given by its old name is not counted as the flag it stands for (a default overrides what the user gave)
# kill: ./internal/cliflag TestAliasIsTheFlag
# file: internal/cliflag/values.go
# expect: Given =
s#^\t\t\tgiven\[a.name\] = true$#\t\t\tgiven[f.Name+a.name[:0]] = true#
