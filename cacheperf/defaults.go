package cacheperf

// Defaults of the CachePerf application and its data (the command line starts from these).
const (
	DefaultListen    = "127.0.0.1:8083"
	DefaultItems     = 40000     // items loaded, ids 1..N (the original kit's 40,000)
	DefaultItemSize  = 500 << 10 // blob bytes per item (the original kit's 500 KB images)
	DefaultCacheSize = 100 << 20 // the in-memory cache's byte budget when serving
	DefaultDiskDir   = "cacheperf-disk"
)
