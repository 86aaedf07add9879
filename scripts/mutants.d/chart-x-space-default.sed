# report charts: the clock axis's ticks at uPlot's default 50 px, not a label's width apart
# kill: ./report/htmlreport TestChartsHaveNoOverlappingTicksNorEmptyLegends
# file: report/htmlreport/assets/charts.js
# expect: tick labels .* overlap or touch
s#xAxis.space = function () { return textWidth("00:00:00") + labelGap; };#xAxis.space = 50;#
s#xAxis.splits = function (u, ai, min, max, incr) { return clockSplits(spec, min, max, incr); };##
