# a transaction of the scenario that never completed in the measured window is dropped from the results
# kill: ./driver TestSummaryInScenarioOrder
# file: driver/order.go
# expect: portfolio, which never completed
s#^\t\t\tres.Transactions = append(res.Transactions, report.Transaction{Name: n})#\t\t\t_ = n#
