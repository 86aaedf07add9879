# SUT: VmHWM ignored
# kill: ./driver/sut TestTotalsFromScriptedSamples
# file: driver/sut/sut.go
s#^\(\s*\)peak = max(peak, p.last.PeakRSS)$#\1_ = peak#
