// Package gctune sets the garbage collector's target for tradebench's processes.
//
// The server's pages allocate a few kilobytes each (request, rendering, rows) and keep
// little: the live heap of a monolith under DayTrader's mix is a few megabytes beside the
// SQLite page caches, which are not Go memory. At Go's default GOGC=100 the collector runs
// every few hundred requests and, with its write barriers, assists and the preemption of
// busy goroutines for its stack scans, cost 10–15 % of a page's CPU; at 400 it runs a quarter
// as often, for about 10 MB more peak memory in the server (docs/benchmarks.md, "What the server's settings buy").
// The driver keeps more (a few hundred MB at 3,000 users), so a heap that GOGC alone would
// let grow to five times the live data is also held under a quarter of the machine's memory
// (a soft limit: the collector runs more often near it, it never fails an allocation).
package gctune

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"

	"github.com/tradebench/tradebench/internal/procfs"
)

// Percent is the GOGC tradebench runs with when the environment does not set one.
const Percent = 400

// Apply sets the collector's target to Percent unless $GOGC is set (the user's choice,
// which the runtime has already applied, wins), and then, unless $GOMEMLIMIT is set, a soft
// memory limit of a quarter of the machine's memory (or of its cgroup's limit, if lower). It
// reports whether it set GOGC.
func Apply() bool {
	if _, set := os.LookupEnv("GOGC"); set {
		return false
	}
	debug.SetGCPercent(Percent)
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		if m := machineMemory(); m > 0 {
			debug.SetMemoryLimit(m / 4)
		}
	}
	return true
}

// Current is the collector's target now (GOGC; -1 = off), read without changing it, for the
// server's configuration page.
func Current() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	v := s[0].Value.Uint64()
	if v > 1<<31 {
		return -1
	}
	return int(v)
}

// machineMemory is the memory this process may use in bytes: the machine's (MemTotal of
// /proc/meminfo), or its cgroup v2 limit when lower; 0 when neither can be read.
func machineMemory() int64 {
	total := procfs.Default.MemTotal()
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if lim, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && lim > 0 && (total == 0 || lim < total) {
			total = lim
		}
	}
	return total
}
