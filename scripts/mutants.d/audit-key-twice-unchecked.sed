# the audit does not count a key stored twice: a replay placed twice under one key passes
# kill: ./trade/audit TestAuditCatchesCorruption
# file: trade/store/audit.go
# expect: lost its primary key
s#FROM requestkeys GROUP BY idemkey HAVING count(\*) > 1#FROM requestkeys GROUP BY idemkey HAVING count(*) > 2#
