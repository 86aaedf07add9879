package tradejob

import (
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/audit"
)

// TestReconcileCounts: the acknowledged orders are the passed buys and sells; the ambiguous
// ones their failures, less those refused before they were sent (connect), plus those cut off
// by the run's end; other transactions place nothing; a key that placed two orders is counted.
// Results with ramps count only their measured window and are refused. Mutants:
// reconcile-connect-ambiguous, reconcile-stop-unambiguous, reconcile-ramps-counted.
func TestReconcileCounts(t *testing.T) {
	res := report.New("http")
	res.Transactions = []report.Transaction{
		{Name: "login", Pass: 500, Errors: 9},
		{Name: "buy", Pass: 300, Errors: 7, Stop: 2},
		{Name: "sell", Pass: 40, Errors: 1},
	}
	res.Errors = []report.ErrorGroup{
		{Kind: "connect", Transaction: "buy", Count: 3},
		{Kind: "status 502", Transaction: "buy", Count: 4},
		{Kind: "connect", Transaction: "login", Count: 9},
		{Kind: "timeout", Transaction: "sell", Count: 1},
	}
	sum := &audit.Summary{Placed: 345, ByKind: map[string]int64{audit.KindKey: 1}}
	r, err := Reconcile(res, sum)
	if err != nil {
		t.Fatal(err)
	}
	if want := (audit.Reconciliation{Placed: 345, Acknowledged: 340, Ambiguous: 7 - 3 + 2 + 1, PlacedTwice: 1}); r != want {
		t.Errorf("reconciliation %+v, want %+v", r, want)
	}
	res.Phases.RampUpSeconds = 2
	if _, err := Reconcile(res, sum); err == nil || !strings.Contains(err.Error(), "measured window only (ramp-up 2s") {
		t.Errorf("results with a ramp-up: %v", err)
	}
}
