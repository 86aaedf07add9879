// Package alloctest measures what a piece of code allocates, for tests that bound the memory a
// hostile request may cost.
package alloctest

import "runtime"

// During reports how many bytes the process allocated while f ran. TotalAlloc only grows, so
// the figure does not depend on when the collector runs.
func During(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
