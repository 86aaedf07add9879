# quick mode's duplicate-header check is case-sensitive: -H "accept: a" -H "Accept: b" sends Accept twice
# kill: ./driver TestQuickHeadersChecked
# file: driver/quick.go
# expect: given twice
s#seen\[strings.ToLower(name)\]#seen[name]#g
