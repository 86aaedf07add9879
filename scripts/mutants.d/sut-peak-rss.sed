# SUT: the peak of sampled RSS not tracked
# kill: ./driver/sut TestTotalsFromScriptedSamples
# file: driver/sut/sut.go
s#^\(\s*\)p.peak = max(p.peak, s.RSSBytes)$#\1_ = s.RSSBytes#
