# run rules: --rule-sut-cores ignored when the machine's CPU count is known
# kill: ./report TestSUTCoresSettingBeatsMachineCPUs
# file: report/validity.go
# expect: want pass
s#case rules.SUTCores > 0:#case rules.SUTCores > 0 \&\& (res.System == nil || res.System.CPUs == 0):#
