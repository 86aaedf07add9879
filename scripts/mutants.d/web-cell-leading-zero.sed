# a page cell's leading digit group under 10 written with a zero ("$01.00")
# kill: ./trade/web TestCellsMatchFormatters
# file: trade/web/cells.go
# expect: moneyText
s/^\t\tskip = 2$/\t\tskip = 1/
