# flags: an unknown flag gets no "did you mean" from the command's own flags
# kill: ./internal/cliflag TestParseMistakesAreOneLine
# file: internal/cliflag/cliflag.go
# expect: did you mean
s#^\tif len(cs) == 0 || cs\[0\].d > max(2, len(name)/3) {$#\tif true {#
