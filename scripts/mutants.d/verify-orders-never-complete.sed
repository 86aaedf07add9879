# orders never completed: a synchronous order is recorded open and never applied (each check that places an order of its own says so)
# kill: ./bench/verify TestVerifyTradebench
# file: trade/business/trading.go
# expect: failed \[business\.orders_complete business\.account_totals audit\.orders_once\]$
/^func (s \*Service) place(/,/^}/ s#if s.sync() {#if false \&\& s.sync() {#
