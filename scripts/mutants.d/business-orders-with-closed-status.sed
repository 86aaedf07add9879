# the account page's listed orders keep the status they were read with: an alerted order shows "closed"
# kill: ./trade/business TestOrdersWithClosedAsTwoCalls
# file: trade/business/portfolio.go
# expect: listed closed, want completed
s/pg\.Orders\[i\]\.Status = trade\.StatusCompleted/_ = i/
