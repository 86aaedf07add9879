# verify --services blind to a refused registration that created its account anyway: input.fields no longer looks
# kill: ./bench/verifyservices TestVerifyServicesBroken
# file: bench/verifyservices/verifyservices.go
# expect: failed \[\], want exactly \[input\.fields\]
s#if _, gerr := v.svc.GetAccountData(v.ctx, r.UserID); gerr == nil {#if _, gerr := v.svc.GetAccountData(v.ctx, r.UserID); false \&\& gerr == nil {#
