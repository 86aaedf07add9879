# web: the DayTrader sell action not marked as changing state (a same-site request served)
# kill: ./trade/server TestSameSiteRefusedOnEveryStateChange
# file: trade/web/daytrader.go
# expect: same-site sell
/"sell": *{/s#, mutating: true}#}#
