# a capacity search of a drive with a Rate stays a closed-model search of users
# kill: ./driver TestPeakOfARate
# file: driver/driver.go
# expect: a rate's search
s#^\t\t\tpc.Open, pc.Start = true, c.Rate$#\t\t\t_ = pc#
