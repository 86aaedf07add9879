# a web tier without a database leaves its services host's data set out of config.json
# kill: ./trade/server TestRemoteWebTierReportsTheDataSet
# file: trade/server/describe.go
# expect: want the services host's 37 accounts
s/^\t\t\td.Access.DataSet = s.remote.get(s.sw)$/\t\t\t_ = s.remote.get(s.sw)/
