# live metrics: Done ignores the final results' error rate
# kill: ./driver/live TestLiveDoneTakesFinalVerdict
# file: driver/live/metrics.go
# expect: after Done with 5% errors
/^func (m \*Metrics) Done/,/^}/s#m.setErrors(res.ErrorRate())#_ = res.ErrorRate()#
