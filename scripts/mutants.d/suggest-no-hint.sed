# did-you-mean: no suggestion for a misspelt enumerated value (scenario, access, orders, …)
# kill: ./cmd/tradebench TestDidYouMeanForEnumeratedValues
# file: internal/suggest/suggest.go
s#^\tif n := Nearest(name, known); n != "" {#\tif n := Nearest(name, known); false \&\& n != "" {#
