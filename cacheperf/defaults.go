package cacheperf

// Defaults of the CachePerf application and its data (the command line starts from these, and
// the sweep's are these).
const (
	DefaultListen   = "127.0.0.1:8083"
	DefaultItems    = 40000     // items loaded, ids 1..N (the original kit's 40,000)
	DefaultItemSize = 500 << 10 // blob bytes per item (the original kit's 500 KB images)
	// DefaultCacheSize is the in-memory cache's byte budget: about 2,000 of the 500 KB items,
	// the working set at which the CachePerf paper's table turns (a 32-bit process's heap), so
	// a server driven by hand and the sweep show the knee at the same key range.
	DefaultCacheSize = 1 << 30
	DefaultDiskDir   = "cacheperf-disk"
)
