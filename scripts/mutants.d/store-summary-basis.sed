# the home page's holdings basis summed without the quantities
# kill: ./trade/store TestUserReads
# file: trade/store/sqlstore/reads.go
# expect: AccountSummary
s/sum(h\.purchaseprice \* h\.quantity)/sum(h.purchaseprice)/
