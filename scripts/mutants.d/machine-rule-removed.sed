# run rules: the other_processes rule removed (a busy machine's run judged as if alone)
# kill: ./driver TestBusyMachineIsNotValid
# file: report/validity.go
# expect: want other_processes inconclusive
s#^\tadd(ruleOther(res, rules))$##
