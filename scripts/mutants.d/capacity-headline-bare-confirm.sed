# capacity headline: results without an interval print their confirming run's ± bare, as if it were the capacity's
# kill: ./report TestCapacityHeadline
# file: report/capacity.go
s#"%.0f (confirm ± %.0f)"#"%.0f ± %.0f"#
