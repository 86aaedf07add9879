# the client writes a request though its context ended after the transaction's start time was taken
# kill: ./driver/vuser TestNoTransactionBegunAfterTheStop
# file: internal/httpc/httpc.go
/before the check: a cancellation after it/,/return resp, false, ctx.Err()/s/if ctx.Err() != nil {/if false \&\& ctx.Err() != nil {/
