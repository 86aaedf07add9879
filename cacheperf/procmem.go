package cacheperf

import (
	"runtime"
	"runtime/debug"

	"github.com/tradebench/tradebench/internal/procfs"
)

// ProcessMemory is this process's memory as the kernel and the Go runtime see it, in bytes.
type ProcessMemory struct {
	RSS         int64 `json:"rss_bytes"`      // VmRSS: resident now
	PeakRSS     int64 `json:"peak_rss_bytes"` // VmHWM: resident high-water mark (since start or the last ResetPeakRSS)
	HeapAlloc   int64 `json:"heap_alloc_bytes"`
	HeapInuse   int64 `json:"heap_inuse_bytes"`
	HeapSys     int64 `json:"heap_sys_bytes"`
	HeapRelease int64 `json:"heap_released_bytes"`
	Sys         int64 `json:"sys_bytes"` // everything the Go runtime got from the OS
	MemoryLimit int64 `json:"memory_limit_bytes"`
	NumGC       int64 `json:"num_gc"`
	Goroutines  int   `json:"goroutines"`
}

// ReadProcessMemory reads /proc/self/status and the runtime's statistics (a short
// stop-the-world: not for a hot path).
func ReadProcessMemory() ProcessMemory {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, hwm := ReadRSS()
	return ProcessMemory{
		RSS: rss, PeakRSS: hwm,
		HeapAlloc: int64(ms.HeapAlloc), HeapInuse: int64(ms.HeapInuse), HeapSys: int64(ms.HeapSys),
		HeapRelease: int64(ms.HeapReleased), Sys: int64(ms.Sys),
		MemoryLimit: debug.SetMemoryLimit(-1), NumGC: int64(ms.NumGC), Goroutines: runtime.NumGoroutine(),
	}
}

// ReadRSS returns VmRSS and VmHWM from /proc/self/status (0, 0 where unavailable).
func ReadRSS() (rss, hwm int64) {
	s, err := procfs.Default.SelfStatus()
	if err != nil {
		return 0, 0
	}
	return s.RSS, s.PeakRSS
}

// ResetPeakRSS resets VmHWM to the current RSS (Linux: "5" to /proc/self/clear_refs). It
// reports whether the kernel allowed it.
func ResetPeakRSS() bool {
	return procfs.Default.ResetPeakRSS() == nil
}
