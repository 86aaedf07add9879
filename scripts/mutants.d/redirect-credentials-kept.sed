# a cross-origin hop that keeps the user's headers (any-with-headers) keeps Authorization and Cookie too
# kill: ./driver/vuser TestCrossOriginRedirect
# file: driver/vuser/request.go
# expect: any-with-headers: the other host got
s#^\t\t\t\threq.Header = httpc.StripCredentials(hreq.Header)#\t\t\t\t_ = httpc.StripCredentials#
