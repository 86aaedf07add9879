package cacheperfjob

import (
	"slices"
	"time"
)

// Quick presets for a laptop-sized sweep (about two minutes; the command's --quick).
const (
	QuickItemSize  = 50 << 10
	QuickCacheSize = 25 << 20
	QuickWarmup    = time.Second
	QuickSteady    = 3 * time.Second
)

// QuickKeys and QuickMixKeys are the quick sweep's key ranges.
var (
	QuickKeys    = []int{100, 200, 300, 400, 500, 600, 800, 1000, 2000, 4000}
	QuickMixKeys = []int{200, 400, 600, 800, 1000}
)

// SetQuick makes c the quick sweep and records it (Quick): the item size, the cache budget, the
// key ranges and the phases' warm-up and steady state get the quick presets, except the fields
// keep reports true for (by Config field name, as a *setting.Error names them: Size, Budget,
// Keys, MixKeys, RampUp, Duration) — settings given explicitly win.
func (c *Config) SetQuick(keep func(field string) bool) {
	c.Quick = true
	set := func(field string, apply func()) {
		if !keep(field) {
			apply()
		}
	}
	set("Size", func() { c.Size = QuickItemSize })
	set("Budget", func() { c.Cache.Budget = QuickCacheSize })
	set("Keys", func() { c.Keys = slices.Clone(QuickKeys) })
	set("MixKeys", func() { c.MixKeys = slices.Clone(QuickMixKeys) })
	set("RampUp", func() { c.RampUp = QuickWarmup })
	set("Duration", func() { c.Duration = QuickSteady })
}

// TempItems is the number of items a sweep without DB loads into its temporary database: Items,
// or the largest key range of the keys and the mix keys.
func (c *Config) TempItems() int {
	return max(c.Items, slices.Max(append(slices.Clone(c.Keys), c.MixKeys...)))
}
