# business rules: a buy costing exactly the balance refused (>= for >)
# kill: ./trade/business TestBuyWithExactlyEnoughCash
# file: trade/business/trading.go
# expect: costing exactly the balance was refused
s#if cost := o.Total(); cost > a.Balance {#if cost := o.Total(); cost >= a.Balance {#
