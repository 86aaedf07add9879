# async completion's funds re-check disabled
# kill: ./trade/business TestAsyncCompletionRechecksFunds
# file: trade/business/trading.go
s#if err := checkFunds(\*a, \*o); err != nil {#if err := checkFunds(*a, *o); false \&\& err != nil {#
