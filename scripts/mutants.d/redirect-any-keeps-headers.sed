# --redirects any keeps the user's headers (an X-Api-Key) on a hop to another origin
# kill: ./driver/vuser TestCrossOriginRedirect
# file: driver/vuser/request.go
# expect: carried what it must not
s#^\t\t\t\threq.Header = nil$#\t\t\t\threq.Header = httpc.StripCredentials(hreq.Header)#
