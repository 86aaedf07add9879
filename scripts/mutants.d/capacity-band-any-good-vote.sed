# report: a load judged good when any of its measurements was (a re-measurement's own vote), so the knee band leaves the text's bracket
# kill: ./report/htmlreport TestKneeBandAgreesWithRemeasuredText
# file: report/capacity.go
s#			good = 2\*n > len(ms)#			good = n > 0#
