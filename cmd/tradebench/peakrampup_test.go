package main

import (
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/peak"
	"github.com/tradebench/tradebench/internal/cliflag"
)

// `--peak-ramp-up 0s` is a setting, not "unset": the capacity search's steps start their users
// at once; without the flag they take the 5 s default.
// Mutants: scripts/mutants.d/peak-ramp-up-flag-dropped (the flag not mapped — 0s and 2s became
// 5s); peak-ramp-up-zero-unset (SetDefaults treating zero as unset — 0s became 5s).
func TestPeakRampUpZero(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"--peak", "--peak-ramp-up", "0s"}, 0},
		{[]string{"--peak"}, peak.DefaultStepRampUp},
		{[]string{"--peak", "--peak-ramp-up", "2s"}, 2 * time.Second},
	} {
		fs := cliflag.NewFlagSet("tradebench drive", "")
		var f driveFlags
		f.register(fs, driver.Phases{Users: driver.DefaultUsers, Duration: driver.DefaultDuration})
		if err := cliflag.Parse(fs, c.args, false); err != nil {
			t.Fatal(err)
		}
		cfg, err := f.config(fs, "")
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if cfg.Peak == nil || cfg.Peak.StepRampUp == nil || *cfg.Peak.StepRampUp != c.want {
			t.Errorf("%v: peak config %+v, want step ramp-up %v", c.args, cfg.Peak, c.want)
		}
		cfg.Peak.SetDefaults() // again, as the pipeline and the search do: 0 stays 0
		if *cfg.Peak.StepRampUp != c.want {
			t.Errorf("%v: step ramp-up %v after SetDefaults, want %v", c.args, *cfg.Peak.StepRampUp, c.want)
		}
	}
}
