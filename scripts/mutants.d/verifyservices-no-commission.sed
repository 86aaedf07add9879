# no commission over the services contract: every order's fee is zero (the cash arithmetic stays consistent, only the rule breaks)
# kill: ./bench/verifyservices TestVerifyServices
# file: trade/rules.go
# expect: failed \[business\.commission\]$
s#^const OrderFee = Money(2495)#const OrderFee = Money(0)#
