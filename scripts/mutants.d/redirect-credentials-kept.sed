# a cross-origin hop keeps the request's Authorization and Cookie headers
# kill: ./driver/vuser TestCrossOriginRedirect
# file: driver/vuser/vuser.go
# expect: carried what it must not
s#^\t\t\threq.Header = httpc.StripCredentials(hreq.Header)#\t\t\t_ = httpc.StripCredentials#
