# the web tier's one SessionTTL check dropped: a 30 s session lifetime accepted by web.New, server.Config and serve --session-ttl
# kill: ./trade/web TestOptionsOneCheck
# file: trade/web/web.go
s#case o.SessionTTL < MinSessionTTL:#case false \&\& o.SessionTTL < MinSessionTTL:#
