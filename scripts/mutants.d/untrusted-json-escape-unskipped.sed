# the JSON depth check does not skip a backslash's escaped byte: "\"" ends the string early and hides deep nesting
# kill: ./internal/untrusted TestCheckJSONDepth
# file: internal/untrusted/untrusted.go
# expect: hidden behind
/^\t\t\tcase '\\\\':$/{n;s#^\t\t\t\ti++$#\t\t\t\t_ = i#}
