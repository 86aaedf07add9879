# serve no longer maps server.Config's Web.SessionTTL to its flag: the error does not name --session-ttl
# kill: ./cmd/tradebench TestCLI
# file: cmd/tradebench/serve.go
s#"Web.SessionTTL": "session-ttl", ##
