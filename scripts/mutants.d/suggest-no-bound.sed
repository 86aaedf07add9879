# did-you-mean: the nearest name suggested however far it is
# kill: ./internal/suggest TestNearest
# file: internal/suggest/suggest.go
s#if bd < 0 || bd > max(2, len(name)/3) || bd >= len(name) {#if bd < 0 {#
