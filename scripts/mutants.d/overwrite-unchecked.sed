# results: an existing --out overwritten without --force
# kill: ./cmd/tradebench TestOutIsNotOverwrittenWithoutForce
# file: report/publish/publish.go
s#^\tif force {$#\tif true {#
