# flags: a bad value given to an old name (-d 10) is reported by the old name, not the flag it stands for
# kill: ./internal/cliflag TestParseMistakesAreOneLine
# file: internal/cliflag/cliflag.go
# expect: duration 10
s#^\t\tif a, ok := f.Value.(aliasValue); ok {#\t\tif a, ok := f.Value.(aliasValue); false \&\& ok {#
