# a threshold given in percent (1%) is read as the fraction 1
# kill: ./report TestLimits
# file: report/limits.go
# expect: thresholds
s#^\t\tv /= 100$#\t\tv /= 1#
