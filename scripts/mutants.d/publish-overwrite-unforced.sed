# results: the overwrite rule ignores force's absence (an existing results file is replaced)
# kill: ./report/publish TestOverwriteRule
# file: report/publish/publish.go
# expect: ExistsError
s#^\tif force {$#\tif true {#
