# compare: latency series keep the seconds with 0 TPS
# kill: ./report TestLatencySeriesSkipIdleSeconds
# file: report/repeats.go
# expect: want the 4 seconds
s#if m.Unit == "ms" \&\& p.TPS == 0 {#if false \&\& m.Unit == "ms" \&\& p.TPS == 0 {#
