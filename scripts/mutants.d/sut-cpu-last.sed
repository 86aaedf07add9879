# SUT: CPU seconds the last reading, not last - first
# kill: ./driver/sut TestTotalsFromScriptedSamples
# file: driver/sut/sut.go
s#round(p.last.CPUSeconds-p.first.CPUSeconds, 3)#round(p.last.CPUSeconds, 3)#
