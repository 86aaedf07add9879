# web: the DayTrader update_profile action not marked as changing state (a same-site request served)
# kill: ./trade/server TestSameSiteRefusedOnEveryStateChange
# file: trade/web/daytrader.go
# expect: same-site update_profile
/"update_profile": *{/s#, mutating: true}#}#
