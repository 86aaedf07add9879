// Package gctune sets the garbage collector's target for tradebench's processes.
//
// The server's pages allocate a few kilobytes each (request, rendering, rows) and keep
// little: the live heap of a monolith under DayTrader's mix is a few megabytes beside the
// SQLite page caches, which are not Go memory. At Go's default GOGC=100 the collector runs
// every few hundred requests and, with its write barriers and assists, cost 10–15 % of a
// page's CPU; at 400 it runs a quarter as often, for about 10 MB more peak memory
// (docs/benchmarks.md, fifth pass). The driver's allocation pattern is alike (a result per
// request, histograms kept), so every command gets the same setting.
package gctune

import (
	"os"
	"runtime/debug"
)

// Percent is the GOGC tradebench runs with when the environment does not set one.
const Percent = 400

// Apply sets the collector's target to Percent unless $GOGC is set (the user's choice,
// which the runtime has already applied, wins), and reports whether it did.
func Apply() bool {
	if _, set := os.LookupEnv("GOGC"); set {
		return false
	}
	debug.SetGCPercent(Percent)
	return true
}
