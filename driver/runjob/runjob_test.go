package runjob

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/report"
)

// The main job end to end on a small data set: load, serve, drive stocktrader, write results —
// with zero errors — and a second run on the same working directory resets instead of loading.
func TestRunEmbedded(t *testing.T) {
	dir := t.TempDir()
	think := scenario.Think{}
	cfg := Config{Workdir: dir, Accounts: 300, Quotes: 100,
		Drive: driver.Config{Users: 3, Think: &think, RampUp: 300 * time.Millisecond, Duration: 2 * time.Second,
			Timeout: 10 * time.Second, Thresholds: []report.Threshold{report.MaxErrorRate(0)}}}
	for run := 1; run <= 2; run++ {
		out, err := Run(context.Background(), cfg)
		if err != nil {
			if out != nil && out.Results != nil {
				for _, e := range out.Results.Errors {
					t.Errorf("%s ×%d in %s: %s", e.Kind, e.Count, e.Transaction, e.Example)
				}
			}
			t.Fatalf("run %d: %v", run, err)
		}
		if out.Out != filepath.Join(dir, "results.json") {
			t.Errorf("results at %q", out.Out)
		}
		res, err := report.ReadFile(out.Out)
		if err != nil {
			t.Fatal(err)
		}
		if res.Scenario != "stocktrader" || res.Total.Pass < 50 || res.Total.Errors != 0 {
			t.Errorf("run %d: %s %+v", run, res.Scenario, res.Total)
		}
		p := res.Settings["params"].(map[string]any)
		if p["users"] != "300" || p["quotes"] != "100" {
			t.Errorf("the scenario was not sized to the data set: %v", p)
		}
		if _, ok := res.Transaction("register"); !ok {
			t.Errorf("no registrations measured: %+v", res.Transactions)
		}
	}
}

func TestRunRejectsBadDataSet(t *testing.T) {
	_, err := Run(context.Background(), Config{Workdir: t.TempDir(), Accounts: 1, Quotes: -5, Drive: driver.Config{Users: 1, Duration: time.Second}})
	if err == nil {
		t.Error("a negative quote count was accepted")
	}
}
