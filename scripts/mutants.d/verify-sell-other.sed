# a holding sellable by another user: the owner is checked neither when the sell is placed nor when it is applied
# kill: ./bench/verify TestVerifyTradebench
# file: trade/business/trading.go
# expect: failed \[isolation\.sell_other\]$
s#h\.AccountID != a\.AccountID#false#g
