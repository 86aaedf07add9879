# capacity chart: the confirming run not plotted
# kill: ./report/htmlreport TestCapacityChartsAgreeWithTheText
# file: report/htmlreport/validity.go
# expect: no confirming run
s#^\tif confirm != nil {$#\tif confirm != nil \&\& false {#
