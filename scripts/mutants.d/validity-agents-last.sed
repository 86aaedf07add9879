# run rules: agents' driver_cpu judged on the last agent reported, not the busiest: a distributed run with a saturated agent listed first passes
# kill: ./report TestQuietMachineAndBusiestAgent
# file: report/validity.go
# expect: a saturated agent listed first
s#if \*a.DriverCPU >= worst {#if true {#
