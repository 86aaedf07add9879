# --keys accepts a key range of 0
# kill: ./bench/cacheperfjob TestKeysFlagValue
# file: bench/cacheperfjob/quick.go
# expect: Set\("0"\) error <nil>
s#if err != nil || n < 1 {#if err != nil || n < 0 {#
