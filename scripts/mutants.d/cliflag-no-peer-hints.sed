# an unknown flag of wrk, hey or k6 (-t2, --vus, -n, -z, --rps) gets no hint of what to give instead
# kill: ./internal/cliflag TestPeerToolFlags
# file: internal/cliflag/cliflag.go
# expect: want one line with
s/^\tif !ok || fs.Lookup(p.needs) == nil {$/\tif true {/
