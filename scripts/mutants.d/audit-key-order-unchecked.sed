# the audit does not check whose order a key names: a key of another user's order passes
# kill: ./trade/audit TestAuditCatchesCorruption
# file: trade/store/audit.go
# expect: another user's order
s#OR a.userid <> k.userid)#)#
