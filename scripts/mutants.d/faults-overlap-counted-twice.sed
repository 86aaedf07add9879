# a second inside two overlapping fault windows counts its errors twice, excusing errors outside the windows
# kill: ./report TestOverlappingFaultWindowsCountOnce
# file: report/faults.go
# expect: counted
/^\t\t\tif secondOverlaps(p.Second, f.StartS-FaultSlack.Seconds(), f.EndS+FaultSlack.Seconds()) {$/,/^\t\t\t}$/{s#^\t\t\t\tbreak$#\t\t\t\t_ = 0#}
