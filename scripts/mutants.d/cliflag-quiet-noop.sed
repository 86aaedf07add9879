# flags: the old --quiet no longer turns progress off
# kill: ./internal/cliflag TestProgress
# file: internal/cliflag/values.go
# expect: mode
s#^\t\tq.p.mode = "off"$#\t\tq.p.mode = "auto"#
