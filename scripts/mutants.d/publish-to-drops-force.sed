# Output.To drops Force: run --versus --force refuses to replace the other side's results file
# kill: ./report/publish TestToKeepsSettings
# file: report/publish/publish.go
# expect: Force
s#return \&Output{Out: out, Force: o.Force, #return \&Output{Out: out, #
