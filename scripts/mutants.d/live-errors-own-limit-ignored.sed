# live metrics: the errors rule ignores the run's own max_error_rate (always 0.01 %)
# kill: ./driver/live TestLiveErrorsRuleUsesRunsLimit
# file: driver/live/metrics.go
# expect: under the run's 10% limit
s#m.errorLimit = t.Limit#m.errorLimit = DefaultMaxErrorRate#
