# report: every process found as the system under test labelled "found by its port" in the resources table, a database backend of the server's own connections among them
# kill: ./report/htmlreport TestFoundReasonAsTheSummary
# file: report/htmlreport/templates/report.tmpl
# expect: report lacks
s#{{with .Found}}, {{.}}{{end}}#{{with .Listen}}, listening on {{.}} (found by its port){{end}}#
