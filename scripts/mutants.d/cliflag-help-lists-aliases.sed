# flags: --help lists the hidden aliases of renamed flags
# kill: ./internal/cliflag TestAliasIsTheFlag
# file: internal/cliflag/cliflag.go
# expect: hidden alias
s#^\t\tif _, hidden := f.Value.(aliasValue); !hidden {$#\t\tif _, hidden := f.Value.(aliasValue); hidden || true {#
