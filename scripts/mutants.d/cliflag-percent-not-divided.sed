# flags: a percentage (1%) read as a fraction (1): --rule-errors 5% is refused
# kill: ./internal/cliflag TestFraction
# file: internal/cliflag/fraction.go
# expect: 5% and 150%
s#^\t\tv /= 100$#\t\tv /= 1#
