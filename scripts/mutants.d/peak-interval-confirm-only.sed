# peak: the capacity's interval the confirming run's noise alone (the knee's resolution and the run-to-run spread left out)
# kill: ./driver/peak TestIntervalsHoldAKneeOnAnotherStep
# file: report/capacity.go
# expect: does not hold the other run's capacity
s#sd := SecondRunSD(confirmHalf, kneeHi-kneeLo, run)#sd := SecondRunSD(confirmHalf, 0, 0)#
