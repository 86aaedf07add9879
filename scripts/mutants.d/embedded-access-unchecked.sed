# run: an unknown --access (or --versus access=) is not refused by the embedded run's one check
# kill: ./bench/tradejob TestEmbeddedSettings
# file: bench/tradejob/tradejob.go
# expect: rset
s#^\tif e.Access != "" \&\& !slices.Contains(remote.Accesses(), e.Access) {$#\tif e.Access == "unchecked" \&\& !slices.Contains(remote.Accesses(), e.Access) {#
