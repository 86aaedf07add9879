package driver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/peak"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/setting"
)

// TestMoreUsersThanAccountsRefused: 11 users on a scenario logging in 10 unique accounts is
// refused before any request, as a usage error naming the Config field (the command line maps
// it to the flag), the variable and the numbers.
func TestMoreUsersThanAccountsRefused(t *testing.T) {
	srv, conns := trivial(t)
	_, err := Drive(context.Background(), Config{Target: srv.URL, Scenario: "buysell", Params: map[string]string{"users": "10"}, Phases: Phases{Users: 11, Duration: time.Second}}, HTTP)
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("error %v (%T), want a *UsageError", err, err)
	}
	var se *setting.Error
	if !errors.As(err, &se) || se.Field != "Users" {
		t.Fatalf("error %v does not name the field Users", err)
	}
	want := "Users: 11 at once: variable uid (line 14) draws from {unique 0..users}, whose values no two virtual users hold at once, but the range has 10 values (0…9): enough for 10 users at once, not 11; lower it to at most 10 or widen the range"
	if err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("%d connections to the target: the run should not have started", n)
	}
	// as many users as accounts runs
	res, err := Drive(context.Background(), Config{NoPreflight: true, Target: srv.URL, Scenario: "buysell", Params: map[string]string{"users": "10"}, Phases: Phases{Users: 10, Think: &scenario.Think{}, Duration: time.Minute}, Iterations: 1}, HTTP)
	if res == nil {
		t.Fatalf("10 users on 10 accounts: %v", err)
	}
}

// TestFitUnique: bounds the user did not set (the open model's in-flight limit, the peak
// search's maximum) shrink to the unique range; ones they did set are refused when too large.
func TestFitUnique(t *testing.T) {
	sc, err := LoadScenario("stocktrader", scenario.Options{Params: map[string]string{"users": "40"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg, notes, err := fitUnique(Config{Phases: Phases{Rate: 10}}, sc)
	if err != nil || cfg.MaxInFlight != 40 || len(notes) != 1 {
		t.Errorf("open model, default in-flight limit: %d, %v, %v", cfg.MaxInFlight, notes, err)
	}
	if _, _, err := fitUnique(Config{Phases: Phases{Rate: 10}, MaxInFlight: 41}, sc); err == nil || !strings.HasPrefix(err.Error(), "MaxInFlight: 41 at once: variable uid") {
		t.Errorf("open model, 41 in flight: %v", err)
	}
	search := Config{Phases: Phases{Users: 5}, Peak: &peak.Config{Start: 10}}
	search.SetDefaults() // the search's default Max, which fitUnique lowers
	cfg, notes, err = fitUnique(search, sc)
	if err != nil || cfg.Peak.Max != 40 || len(notes) != 1 {
		t.Errorf("peak search: max users %g, %v, %v", cfg.Peak.Max, notes, err)
	}
	if _, _, err := fitUnique(Config{Peak: &peak.Config{Start: 50}}, sc); err == nil || !strings.HasPrefix(err.Error(), "Peak.Start: 50 at once:") {
		t.Errorf("peak search starting above the range: %v", err)
	}
	quick, _, err := quickScenario("http://h/x?{0..3}", nil, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg, notes, err := fitUnique(Config{Phases: Phases{Rate: 10}, Peak: nil}, quick); err != nil || cfg.MaxInFlight != 0 || notes != nil {
		t.Errorf("no unique draws, nothing changes: %+v %v %v", cfg, notes, err)
	}
}

// TestSeedRecordedAndRepeated: the results record the seed (a random one when none is given),
// and the same seed draws the same values again.
func TestSeedRecordedAndRepeated(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.RawQuery)
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	drive := func(seed uint64) (string, uint64) {
		mu.Lock()
		got = nil
		mu.Unlock()
		res, err := Drive(context.Background(), Config{URL: srv.URL + "/q?s={0..1000000}", Phases: Phases{Users: 1, Duration: time.Minute}, Iterations: 20, Seed: seed}, HTTP)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(got, " "), res.Settings.Seed
	}
	a, sa := drive(7)
	b, sb := drive(7)
	c, sc := drive(0)
	if a != b || sa != uint64(7) || sb != uint64(7) {
		t.Errorf("seed 7 twice: %q (seed %v), %q (seed %v)", a, sa, b, sb)
	}
	if c == a || sc == 0 {
		t.Errorf("no seed: drew %q with recorded seed %v", c, sc)
	}
	if d, _ := drive(sc); d != c {
		t.Errorf("the recorded seed %v does not repeat its run: %q, then %q", sc, c, d)
	}
}
