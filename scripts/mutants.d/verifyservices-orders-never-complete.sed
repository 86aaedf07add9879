# orders never completed over the services contract: a synchronous order is recorded open and never applied (the second account then gets no holding, so the isolation setup fails too and the checks needing it are skipped)
# kill: ./bench/verifyservices TestVerifyServices
# file: trade/business/trading.go
# expect: failed \[business\.orders_complete isolation\.accounts\]$
/^func (s \*Service) place(/,/^}/ s#if s.sync() {#if false \&\& s.sync() {#
