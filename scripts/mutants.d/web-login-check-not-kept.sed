# a login's own read of the logout count is not kept as the session's check: the next page asks again
# kill: ./trade/web TestLoginCountsAsSessionCheck
# file: trade/web/handlers.go
# expect: asked the services 1 times
s#^\ta.sess.checks.put(acct.UserID, acct.LogoutCount, a.sess.now())$#\t_ = acct#
