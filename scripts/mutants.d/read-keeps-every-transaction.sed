# report: a results file's transactions all kept while decoding (the cap applied only when a page draws): memory grows with the file's transactions
# kill: ./report TestReadKeepsTheBusiestTransactions
# file: report/read.go
# expect: transactions kept, want
s#	if len(k.kept) < MaxReadTransactions {#	if true {#
