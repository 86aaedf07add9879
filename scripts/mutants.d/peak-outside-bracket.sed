# peak: the plateau taken over every step within the bounds, past the stated bracket too
# kill: ./driver/peak TestPeakStaysInBracket
# file: driver/peak/conclude.go
s#p.load <= s.good.load#true#g
