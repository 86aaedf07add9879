# a 500 on a negative quantity: the web tier's check fails as a system fault, not a user's mistake
# kill: ./bench/verify TestVerifyTradebench
# file: trade/web/handlers.go
# expect: failed \[input\.quantity\]$
s#if err := trade.ValidateQuantity(n, allowZero); err != nil {#if n < 0 { return 0, errors.New("negative") }; if err := trade.ValidateQuantity(n, allowZero); err != nil {#
