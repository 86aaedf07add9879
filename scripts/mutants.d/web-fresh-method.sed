# web: the fresh session check limited to DayTrader's mutating actions
# kill: ./trade/web TestTradePostAfterLogoutElsewhereRefused
# file: trade/web/web.go
s#fresh := (r.Method != http.MethodGet && r.Method != http.MethodHead) || (dt#fresh := (dt#
