# report: a results file's peak-search steps kept however many (a hostile file with a million steps)
# kill: ./report TestReadKeepsTheBusiestTransactions
# file: report/read.go
# expect: steps kept
s#len(p.Steps) > MaxReadSteps {#len(p.Steps) > MaxReadSteps*1000 {#
