# report: chart JSON without HTML escaping
# kill: ./report/htmlreport TestReportChartDataCannotCloseItsScript
# file: report/htmlreport/view.go
# expect: closed the chart data.s script element
s#^import (#import (\n\tmutbytes "bytes"\n\tmutjson "encoding/json"#
/^func (v reportView) ChartData() \[\]chartSpec {$/,/^}$/{
s#^func (v reportView) ChartData() \[\]chartSpec {$#func (v reportView) ChartData() template.JS {#
s#^\(\s*\)return all$#\1var b mutbytes.Buffer\n\1e := mutjson.NewEncoder(\&b)\n\1e.SetEscapeHTML(false)\n\1e.Encode(all)\n\1return template.JS(b.String())#
}
