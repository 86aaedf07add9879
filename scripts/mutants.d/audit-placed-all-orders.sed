# the orders placed since the load count the loaded ones too
# kill: ./trade/audit TestAuditCatchesCorruption
# file: trade/store/audit.go
s#"SELECT count(\*) FROM orders WHERE orderid > " + strconv.FormatInt(loadedMaxOrderID, 10)#"SELECT count(*) FROM orders WHERE orderid > " + strconv.FormatInt(0*loadedMaxOrderID, 10)#
