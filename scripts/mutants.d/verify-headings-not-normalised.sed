# text read as written, white space not normalised: DayTrader's wrapped "order\n ID" is not the order table's heading
# kill: ./bench/verify TestReadOrders
# file: bench/verify/read.go
# expect: daytrader confirmation
s#if s := normalise(cur.String()); s != "" {#if s := strings.TrimSpace(cur.String()); s != "" {#
