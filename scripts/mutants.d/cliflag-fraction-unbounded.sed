# a share flag (cliflag.Fraction) ignores its upper bound: --rule-driver-cpu 150% is taken
# kill: ./internal/cliflag TestFraction
# file: internal/cliflag/fraction.go
# expect: --rule 150% was taken
s/^\tcase f.Max > 0 \&\& v > f.Max:$/\tcase false \&\& v > f.Max:/
