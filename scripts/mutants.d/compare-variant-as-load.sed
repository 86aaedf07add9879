# compare: the access mode counted a load setting (the comparison of access modes greyed, not coloured)
# kill: ./report/htmlreport TestCompareColoursAccessModes
# file: report/htmlreport/significance.go
s#^var loadSettingKeys = \[\]string{"settings.users", #var loadSettingKeys = []string{"disclosure.configuration.access.mode", "settings.users", #
