# report charts: a legend entry shows "name:" with no value while the cursor is off the chart
# kill: ./report/htmlreport TestChartsHaveNoOverlappingTicksNorEmptyLegends
# file: report/htmlreport/assets/style.css
# expect: a legend entry ends with an empty value
s#^\.u-inline\.u-live \.u-series:has(\.u-value:empty) th::after { content: none; }##
