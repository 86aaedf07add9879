# flags: a list of counts (--keys) accepts a 0
# kill: ./internal/cliflag TestLists
# file: internal/cliflag/lists.go
# expect: --keys 10,0
s#^\t\tif err != nil || n < 1 {$#\t\tif err != nil || n < 0 {#
