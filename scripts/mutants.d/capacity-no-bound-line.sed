# capacity chart: no line for the p90 bound
# kill: ./report/htmlreport TestCapacityChartsAgreeWithTheText
# file: report/htmlreport/validity.go
# expect: no p90 bound line
s#if d, err := time.ParseDuration(r.Settings.Peak.MaxP90); err == nil \&\& d > 0 {#if d, err := time.ParseDuration(r.Settings.Peak.MaxP90); err == nil \&\& d < 0 {#
