# one /proc reader: CachePerf writes /proc/self/clear_refs itself again, beside internal/procfs (its parsing, costs and escaping written twice)
# kill: ./internal/layering TestOneProcReader
# file: cacheperf/procmem.go
# expect: reads "/proc/self/clear_refs" itself
s#return procfs.Default.ResetPeakRSS() == nil#return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil#
