# results: an existing --out overwritten without --force
# kill: ./cmd/tradebench TestOutIsNotOverwrittenWithoutForce
# file: cmd/tradebench/pipeline.go
s#^\tif force {$#\tif true {#
