package tradejob

import (
	"fmt"
	"slices"

	"github.com/tradebench/tradebench/internal/httpc"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/audit"
)

// OrderTransactions are the scenario transactions that place an order (the built-in
// scenarios' names, DayTrader's actions).
var OrderTransactions = []string{"buy", "sell"}

// Reconcile sets a run's acknowledged and ambiguous orders, from its results, against the
// orders the audited database holds since the load (tradebench audit --results): a failed buy
// or sell is ambiguous unless it failed to connect (never sent), and one cut off by the run's
// end is ambiguous too. The results must count every transaction of the run: a drive with a
// ramp-up or ramp-down counts only its measured window, and a repeated run or a capacity
// search only its last part, so their orders cannot be told apart — an error saying so.
func Reconcile(res *report.Results, sum *audit.Summary) (audit.Reconciliation, error) {
	switch {
	case res.Phases.RampUpSeconds > 0 || res.Phases.RampDownSeconds > 0:
		return audit.Reconciliation{}, fmt.Errorf("the results count the measured window only (ramp-up %gs, ramp-down %gs): the orders placed during the ramps cannot be reconciled: drive without ramps (ramp-up and ramp-down 0)",
			res.Phases.RampUpSeconds, res.Phases.RampDownSeconds)
	case res.Peak != nil || len(res.Repeats) > 1:
		return audit.Reconciliation{}, fmt.Errorf("the results are a capacity search or a repeated run, which count their last part only: reconcile a single drive")
	}
	r := audit.Reconciliation{Placed: sum.Placed, PlacedTwice: sum.ByKind[audit.KindKey]}
	for _, t := range res.Transactions {
		if slices.Contains(OrderTransactions, t.Name) {
			r.Acknowledged += t.Pass
			r.Ambiguous += t.Errors + t.Stop
		}
	}
	for _, e := range res.Errors {
		if e.Kind == httpc.KindConnect && slices.Contains(OrderTransactions, e.Transaction) {
			r.Ambiguous -= e.Count // refused before it was sent: not placed
		}
	}
	return r, nil
}
