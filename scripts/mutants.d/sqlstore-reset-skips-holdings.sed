# Reset no longer compares every loaded holding when they changed other than through sells
# kill: ./trade/store TestResetRestoresLoadedState
# file: trade/store/sqlstore/writes.go
s#if n != li.MaxHoldingID || shares != li.HoldingShares {#if false \&\& (n != li.MaxHoldingID || shares != li.HoldingShares) {#
