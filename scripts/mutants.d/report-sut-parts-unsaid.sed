# report: the system under test's CPU not said by process: the database's CPU beside the server's is missing from the summary
# kill: ./report TestSUTFoundGroupedByName
# file: report/summary.go
# expect: summary lacks
s#if parts := SUTParts(r); len(parts) > 1 {#if parts := SUTParts(r); len(parts) > 100 {#
