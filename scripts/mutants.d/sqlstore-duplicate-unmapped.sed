# the shared writes stop mapping a unique-key violation to store.ErrDuplicate (both stores)
# kill: ./trade/store TestPrimitives
# file: trade/store/sqlstore/writes.go
# expect: want ErrDuplicate
s#if err != nil \&\& w.d.IsUnique(err) {#if false \&\& err != nil \&\& w.d.IsUnique(err) {#
