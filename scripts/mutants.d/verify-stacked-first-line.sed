# a label stacked with <BR> in one cell read against the first line of the next cell, not its own line: DayTrader's home page reads its number of holdings as its cash balance
# kill: ./bench/verify TestReadLabelledValues
# file: bench/verify/read.go
# expect: daytrader home
s#found, ok = vs\[i\], true#found, ok = vs[0], true#
