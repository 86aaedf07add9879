# flags: a component's setting error is not mapped to the flag that set the field
# kill: ./internal/cliflag TestNames
# file: internal/cliflag/names.go
# expect: UsageError
s#^\t\tif f, ok := n\[se.Field\]; ok {$#\t\tif f, ok := n[""]; ok {#
