# isolation.get_other accepts a returned holding: a services host leaking other users' holdings passes it
# kill: ./bench/verifyservices TestVerifyServicesBroken
# file: bench/verifyservices/verifyservices.go
# expect: want exactly \[isolation.get_other\]
s#^\(\t*\)c\.fail(req, "refused", fmt\.Sprintf("%+v", h), "%s read %s's holding", v\.a, v\.b)$#\1_ = h#
