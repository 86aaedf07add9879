# YAML aliases expand without a budget
# kill: ./driver/scenario TestYAMLAliasBombRefused
# file: internal/untrusted/untrusted.go
# expect: alias bomb
s#^\t\tif total > MaxYAMLNodes {#\t\tif false {#
