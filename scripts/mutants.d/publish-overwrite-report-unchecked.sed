# results: the report beside the results is left out of the overwrite rule
# kill: ./report/publish TestOverwriteRule
# file: report/publish/publish.go
# expect: an existing report alone
s#^\treturn \[\]string{o.path, htmlreport.PathFor(o.path)}$#\treturn []string{o.path}#
