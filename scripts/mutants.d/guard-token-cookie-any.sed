# the views' guard sets the token cookie for any ?token=, so a guess gets the real token back
# kill: ./internal/httpserve TestGuardTokenAndHost
# file: internal/httpserve/guard.go
# expect: Set-Cookie
s#^\t\t\tif subtle.ConstantTimeCompare(\[\]byte(got), \[\]byte(g.token)) == 1 {#\t\t\tif true {#
