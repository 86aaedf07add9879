# peak: the capacity's interval without the knee's resolution (the throughputs measured around the knee)
# kill: ./driver/peak TestSharpKneeNarrowInterval
# file: report/capacity.go
# expect: not wider than the sharp knee
s#sd := SecondRunSD(confirmHalf, kneeHi-kneeLo, run)#sd := SecondRunSD(confirmHalf, 0, run)#
