# a holding readable and sellable by another user over the services contract: the owner is checked neither when the holding is read or the sell placed nor when it is applied
# kill: ./bench/verifyservices TestVerifyServices
# file: trade/business/trading.go
# expect: failed \[isolation\.get_other isolation\.sell_other\]$
s#h\.AccountID != a\.AccountID#false#g
