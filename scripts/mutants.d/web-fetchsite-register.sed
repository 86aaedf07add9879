# web: the DayTrader register action not marked as changing state (a same-site request served)
# kill: ./trade/server TestSameSiteRefusedOnEveryStateChange
# file: trade/web/daytrader.go
# expect: same-site register
/"register": *{/s#, mutating: true}#}#
