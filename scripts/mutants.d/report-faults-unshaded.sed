# the fault windows are not shaded on the charts
# kill: ./report/htmlreport TestFaultsShadedAndTabled
# file: report/htmlreport/assets/charts.js
s#kneeBand(spec.knee), faultBands(spec.faults)\]#kneeBand(spec.knee)]#
