package cacheperfjob

import (
	"time"

	"github.com/tradebench/tradebench/cacheperf"
)

// Defaults of a sweep, at the scale of the original kit's runs (the command line starts from
// these). The items and the cache budget are the application's own defaults, defined there once
// (cacheperf.DefaultItemSize, cacheperf.DefaultCacheSize): a server driven by hand and the sweep
// show the knee at the same key range.
const (
	DefaultItemSize     = cacheperf.DefaultItemSize // blob bytes per item: the original kit's 500 KB images
	DefaultThreads      = 40                        // client threads, closed model, no think time
	DefaultWarmup       = 10 * time.Second
	DefaultSteady       = 30 * time.Second
	DefaultOtherWorkMix = 60 // percent of threads on the other-work page in the mix
	DefaultOut          = "cacheperf-sweep.json"
)
