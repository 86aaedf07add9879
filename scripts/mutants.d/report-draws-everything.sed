# report and report compare draw every transaction, second and item of a results file (30,000 transactions: 689 MiB, a 25 MB page)
# kill: ./cmd/tradebench TestLargeFlatResultsBounded
# file: report/drawn.go
# expect: peak RSS|a page of|busiest
s#^\tif len(said) == 0 {$#\tif true {#
