# headings and labels compared as written: DayTrader's wrapped "order\n ID" is not the order table's heading
# kill: ./bench/verify TestReadOrders
# file: bench/verify/read.go
# expect: daytrader confirmation
s#strings.ToLower(normalise(s))#strings.ToLower(s)#
