# the market summary read once: a summary computed on a timer, empty a moment, is skipped instead of checked
# kill: ./bench/verify TestVerifySummaryPolled
# file: bench/verify/level_business.go
# expect: business.market_summary skip
s#if len(gain)+len(lose) > 0 || !time.Now().Before(deadline) {#if _ = deadline; true {#
