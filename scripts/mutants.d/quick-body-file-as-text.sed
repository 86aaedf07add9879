# quick mode's --body @FILE is sent as the text "@FILE" instead of the file's content
# kill: ./driver TestQuickBody
# file: driver/quick.go
# expect: QuickBody
s#path, ok := strings.CutPrefix(arg, "@")#path, ok := arg, false#
