package cacheperfjob

import (
	"slices"
	"testing"
	"time"

	"github.com/tradebench/tradebench/cacheperf"
)

// --quick sets the laptop-sized sweep, except what was given explicitly; the temporary
// database holds Items or the largest key range.
// (Mutant cacheperf-quick-overrides-given: the preset replaces a key range given on the
// command line.)
func TestSetQuick(t *testing.T) {
	base := Config{Size: DefaultItemSize, Keys: []int{7}, MixKeys: slices.Clone(PaperMixKeys)}
	base.Cache.Budget = cacheperf.DefaultCacheSize
	base.RampUp, base.Duration = DefaultWarmup, DefaultSteady

	c := base
	c.SetQuick(func(string) bool { return false })
	if !c.Quick || c.Size != QuickItemSize || c.Cache.Budget != QuickCacheSize || !slices.Equal(c.Keys, QuickKeys) ||
		!slices.Equal(c.MixKeys, QuickMixKeys) || c.RampUp != time.Second || c.Duration != 3*time.Second {
		t.Errorf("quick sweep %+v", c)
	}
	if c.TempItems() != 4000 {
		t.Errorf("the quick sweep loads %d items, want its largest key range 4000", c.TempItems())
	}

	c = base
	given := map[string]bool{"Keys": true, "Duration": true, "Budget": true}
	c.SetQuick(func(f string) bool { return given[f] })
	if !slices.Equal(c.Keys, []int{7}) || c.Duration != DefaultSteady || c.Cache.Budget != cacheperf.DefaultCacheSize ||
		c.Size != QuickItemSize || c.RampUp != time.Second {
		t.Errorf("given settings did not win: %+v", c)
	}
	c.Items = 9000
	if c.TempItems() != 9000 {
		t.Errorf("TempItems %d, want Items 9000", c.TempItems())
	}
}
