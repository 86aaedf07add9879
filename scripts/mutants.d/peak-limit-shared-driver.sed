# peak: the driver's CPU named as the limit though it shares the server's process (the two cannot be told apart)
# kill: ./driver/peak TestLimitNamed
# file: driver/peak/conclude.go
# expect: shared driver
s#if d := best.Driver; d != nil \&\& !shared \&\& d.Utilisation#if d := best.Driver; d != nil \&\& d.Utilisation#
