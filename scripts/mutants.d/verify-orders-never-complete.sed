# orders never completed: a synchronous order is recorded open and never applied
# kill: ./bench/verify TestVerifyTradebench
# file: trade/business/inprocess.go
# expect: failed \[business\.orders_complete\]$
/^func (s \*Service) place(/,/^}/ s#if s.sync() {#if false \&\& s.sync() {#
