# the cookie jar keeps every cookie a host sets
# kill: ./internal/httpc TestCookieJarAndHeadersBounded
# file: internal/httpc/jar.go
# expect: the jar holds
s#^\tif n >= MaxCookiesPerHost {#\tif false {#
