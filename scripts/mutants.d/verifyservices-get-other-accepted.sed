# isolation.get_other accepts a returned holding: a services host leaking other users' holdings passes it
# kill: ./bench/verifyservices TestVerifyServicesBroken
# file: bench/verifyservices/verifyservices.go
# expect: want exactly \[isolation.get_other\]
/v.check("isolation.get_other"/,/^\t})/s#^\t\tif err == nil {#\t\tif false \&\& err == nil {#
