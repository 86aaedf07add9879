# the Host check matches the .localhost suffix without its dot: Host: evillocalhost passes
# kill: ./internal/httpserve TestGuardTokenAndHost
# file: internal/httpserve/guard.go
# expect: evillocalhost
s#strings.HasSuffix(host, ".localhost")#strings.HasSuffix(host, "localhost")#
