# setting.NotNegative lets -1 through (it tests v < -1)
# kill: ./internal/setting TestNotNegative
# file: internal/setting/check.go
# expect: want
s#^\tif v < 0 {#\tif v < -1 {#
