# a stream given as a path is not put under the drive's target
# kill: ./driver/streamload TestConfigDefaultsAndChecks
# file: driver/streamload/streamload.go
# expect: want http://sut:8080/trade/stream/quotes
s#^\t\tc.URL = strings.TrimSuffix(target, "/") + "/" + strings.TrimPrefix(c.URL, "/")#\t\t_ = target#
