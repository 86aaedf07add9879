# run rules: late iterations with no arrivals counted judged "not checked"
# kill: ./report TestLateWithoutArrivalsFails
# file: report/validity.go
# expect: 0 arrivals counted
s#if res.Late > 0 {#if false \&\& res.Late > 0 {#
