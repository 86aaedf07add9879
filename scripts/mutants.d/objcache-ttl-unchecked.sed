# the object cache no longer refuses a negative TTL: cacheperf serve --ttl -1s starts (cmd once repeated the check)
# kill: ./cmd/tradebench TestCLI
# file: cacheperf/objcache/cache.go
s#case c.TTL < 0:#case false \&\& c.TTL < 0:#
