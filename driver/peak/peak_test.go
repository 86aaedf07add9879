package peak

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/report"
)

// fake is a system whose throughput and latency are functions of users.
func fake(tps func(u int) float64, p90 func(u int) float64, errs func(u int) int64) RunFunc {
	return func(ctx context.Context, step, users int) (*report.Results, error) {
		r := report.New("fake")
		r.Total = report.Transaction{TPS: tps(users), P90Ms: p90(users), Pass: 1000, Count: 1000 + errs(users), Errors: errs(users)}
		return r, nil
	}
}

func none(int) int64   { return 0 }
func fast(int) float64 { return 10 }
func search(cfg Config, run RunFunc) (*report.PeakSearch, *report.Results, error) {
	return Search(context.Background(), cfg, run)
}

func TestPlateauEndsTheSearch(t *testing.T) {
	// throughput rises linearly to 100 users, then stays flat
	ps, best, err := search(Config{Start: 20, Step: 20, MaxUsers: 1000, StepDuration: time.Second},
		fake(func(u int) float64 { return float64(min(u, 100)) * 2 }, fast, none))
	if err != nil {
		t.Fatal(err)
	}
	if ps.PeakUsers != 100 || ps.PeakTPS != 200 || ps.PeakStep != 5 || best.Peak != ps {
		t.Errorf("peak %+v", ps)
	}
	// steps 6 and 7 gain nothing: the search stops after two flat steps
	if len(ps.Steps) != 7 || !strings.Contains(ps.StopWhy, "rose less than 3%") {
		t.Errorf("%d steps, stop: %s", len(ps.Steps), ps.StopWhy)
	}
}

func TestLatencyBoundAndErrors(t *testing.T) {
	ps, _, _ := search(Config{Start: 10, Step: 10, MaxUsers: 1000, StepDuration: time.Second, MaxP90: 500 * time.Millisecond},
		fake(func(u int) float64 { return float64(u) }, func(u int) float64 { return float64(u) * 10 }, none))
	// p90 = 10 ms per user: 50 users are at the bound, 60 cross it; the peak is 50
	if ps.PeakUsers != 50 || len(ps.Steps) != 6 || !strings.Contains(ps.StopWhy, "crossed the 500ms bound") {
		t.Errorf("latency: peak %d after %d steps: %s", ps.PeakUsers, len(ps.Steps), ps.StopWhy)
	}
	ps, _, _ = search(Config{Start: 10, Step: 10, MaxUsers: 1000, StepDuration: time.Second},
		fake(func(u int) float64 { return float64(u) }, fast, func(u int) int64 {
			if u >= 40 {
				return 5
			}
			return 0
		}))
	if ps.PeakUsers != 30 || !strings.Contains(ps.StopWhy, "error rate") {
		t.Errorf("errors: peak %d: %s", ps.PeakUsers, ps.StopWhy)
	}
	ps, _, _ = search(Config{Start: 10, Step: 10, MaxUsers: 35, StepDuration: time.Second},
		fake(func(u int) float64 { return float64(u) }, fast, none))
	if ps.PeakUsers != 30 || !strings.Contains(ps.StopWhy, "maximum of 35") {
		t.Errorf("max users: peak %d: %s", ps.PeakUsers, ps.StopWhy)
	}
	_, best, err := search(Config{Start: 10, MaxP90: time.Millisecond}, fake(func(u int) float64 { return 1 }, fast, none))
	if best != nil || err != nil {
		t.Errorf("no step within bounds: best %v err %v", best, err)
	}
	if _, _, err := search(Config{Start: 100, MaxUsers: 10}, fake(fast, fast, none)); err == nil {
		t.Error("start above max accepted")
	}
	boom := errors.New("boom")
	_, _, err = search(Config{}, func(context.Context, int, int) (*report.Results, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Errorf("run error: %v", err)
	}
}
