# report compare page: the per-transaction bars of a repeated run drawn from its last run, not the medians the tables show
# kill: ./report/htmlreport TestCompareTxBarsAreMedians
# file: report/htmlreport/significance.go
s#	vs := txValues(res, name, of)#	vs := txValues(\&report.Results{Transactions: res.Transactions}, name, of)#
