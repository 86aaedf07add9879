# flags: an unknown flag gets no "did you mean" from the command's own flags
# kill: ./internal/cliflag TestParseMistakesAreOneLine
# file: internal/cliflag/cliflag.go
# expect: did you mean
s#^\treturn suggest.Nearest(name, names)$#\treturn suggest.Nearest(name, nil)#
