# capacity chart: the knee band drawn at the peak's load, not the search's bracket (text and chart disagree)
# kill: ./report/htmlreport TestCapacityChartsAgreeWithTheText
# file: report/htmlreport/validity.go
# expect: knee band
s#case p.Knee \&\& bracketed:#case false \&\& bracketed:#
