# the trade job writes its results itself again (the command then wrote them a second time)
# kill: ./bench/tradejob TestRunEmbedded
# file: bench/tradejob/tradejob.go
# expect: the job wrote results itself
s#^\treturn res, err$#\tres.WriteFile(filepath.Join(c.Workdir, "results.json"))\n&#
