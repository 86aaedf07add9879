# a results file is decoded however deep it nests
# kill: ./cmd/tradebench TestNestedDocumentsBounded
# file: report/read.go
# expect: nested too deep|peak RSS
s#if err := untrusted.CheckJSON(b, untrusted.MaxDepth); err != nil {#if err := untrusted.CheckJSON(b, 1<<30); err != nil {#
