package driver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/driver/scenarios"
	"github.com/tradebench/tradebench/report"
)

// TestSummaryInScenarioOrder: the transactions of a run are listed in the scenario's order,
// whatever order concurrent users completed them first in; names the scenario does not declare
// come last, by name. (Mutants: drop the orderTransactions call in Drive — the results keep the
// recorder's first-seen order, c before a; walk a request's else steps after the others —
// "buy" moves behind "logout" in buysell-like flows.) A transaction the scenario declares that
// never completed is listed at 0, not dropped (mutant zero-transactions-dropped).
func TestSummaryInScenarioOrder(t *testing.T) {
	data, _ := scenarios.Get("buysell")
	sc, err := scenario.Parse("buysell", data, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"login", "buy", "portfolio", "sell", "logout"}
	if got := sc.TransactionNames(); !slices.Equal(got, want) {
		t.Fatalf("buysell's transactions %v, want %v", got, want)
	}
	res := &report.Results{Transactions: []report.Transaction{{Name: "sell"}, {Name: "zz-extra"}, {Name: "logout"}, {Name: "login"}, {Name: "a-extra"}, {Name: "buy"}}}
	orderTransactions(res, want)
	var got []string
	for _, tx := range res.Transactions {
		got = append(got, tx.Name)
	}
	if want := []string{"login", "buy", "portfolio", "sell", "logout", "a-extra", "zz-extra"}; !slices.Equal(got, want) {
		t.Errorf("ordered %v, want %v (portfolio, which never completed, listed at 0)", got, want)
	}
	if p := res.Transactions[2]; p.Count != 0 || p.Pass != 0 {
		t.Errorf("portfolio listed as %+v, want a count of 0", p)
	}
}

// TestDriveListsScenarioOrder: end to end, the run's first measured transaction is the
// scenario's second ("fast": the one user's first "slow" began in the ramp-up, unmeasured), yet
// the results list "slow" first. (Mutant: drop the orderTransactions call in Drive — fast, slow.)
func TestDriveListsScenarioOrder(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(400 * time.Millisecond) // outlasts the ramp-up: the first one is not measured
		}
	}))
	t.Cleanup(srv.Close)
	file := filepath.Join(t.TempDir(), "two.yaml")
	yaml := "name: two\nthink: 0\nflow:\n  - request: {name: slow, url: /slow}\n  - request: {name: fast, url: /fast}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Drive(context.Background(), Config{Target: srv.URL, Scenario: file, Phases: Phases{Users: 1, RampUp: 200 * time.Millisecond, Duration: 1200 * time.Millisecond}}, HTTP)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tx := range res.Transactions {
		got = append(got, tx.Name)
	}
	if !slices.Equal(got, []string{"slow", "fast"}) {
		t.Errorf("transactions %v, want the scenario's order [slow fast]", got)
	}
}
