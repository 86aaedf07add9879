# peak: a confirming run that disagrees with the search believed
# kill: ./driver/peak TestConfirmMustAgree
# file: driver/peak/conclude.go
s#if d := best.Total.TPS - search.Total.TPS; math.Abs(d) > tol {#if d := 0.0; d > tol {#
