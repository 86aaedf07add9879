# report waits for a read or a render to finish before honouring SIGTERM (a file near the size cap: minutes)
# kill: ./cmd/tradebench TestLargeFlatResultsBounded
# file: report/publish/render.go
# expect: after SIGTERM
s#^\tdone := make(chan error, 1)$#\tif ctx != nil {\n\t\treturn fn()\n\t}\n\tdone := make(chan error, 1)#
