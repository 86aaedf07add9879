# the preflight keeps a target's configuration however deep it nests
# kill: ./cmd/tradebench TestNestedDocumentsBounded
# file: driver/preflight.go
# expect: deep configuration|peak RSS
s#untrusted.CheckJSON(doc, untrusted.MaxDepth) != nil || ##
