# quick mode: --body compiled as a scenario template (braces in a JSON body break the run)
# kill: ./cmd/tradebench TestQuickModeRequestReachesTheServer
# file: driver/quick.go
s#req := map\[string\]any{"name": method + " " + u.Path, "url": path, "method": method}#req := map[string]any{"name": method + " " + u.Path, "url": path, "method": method, "body": string(q.Body)}#
s#^\t\tr.Body = scenario.Literal(string(q.Body))#\t\t_ = r#
