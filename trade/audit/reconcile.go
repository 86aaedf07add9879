package audit

import "fmt"

// Reconciliation sets the orders a database holds from a run against what the load driver was
// told, so "nothing lost, nothing placed twice" after a faulted run is a figure, not a claim:
// every acknowledged order is in the database, and every order beyond them is one the driver
// sent and saw fail (the fault may have struck after the order was placed) — never a second
// placement of one request, which the idempotency keys forbid and the audit checks.
type Reconciliation struct {
	// Placed is the orders in the database placed since the load (Summary.Placed).
	Placed int64 `json:"placed"`
	// Acknowledged is the buys and sells the driver saw succeed.
	Acknowledged int64 `json:"acknowledged"`
	// Ambiguous is the buys and sells that failed after being sent, or were cut off by the
	// run's end: each may or may not have been placed.
	Ambiguous int64 `json:"ambiguous"`
	// PlacedTwice is the idempotency keys that placed more than one order, or name an order
	// not theirs (the audit's key check: Summary.ByKind[KindKey]).
	PlacedTwice int64 `json:"placed_twice"`
}

// String is the reconciliation's line for a terminal.
func (r Reconciliation) String() string {
	return fmt.Sprintf("orders: %d placed, %d acknowledged, %d ambiguous (failed after being sent), %d placed twice",
		r.Placed, r.Acknowledged, r.Ambiguous, r.PlacedTwice)
}

// Err is the reconciliation's outcome as an audit failure (nil when the orders reconcile).
func (r Reconciliation) Err() error {
	if p := r.Problem(); p != "" {
		return &Failed{Violations: 1, Why: "the orders do not reconcile: " + p}
	}
	return nil
}

// Problem says why the orders do not reconcile ("" when they do): an acknowledged order
// missing from the database (lost), more orders than the driver could have caused (placed
// twice, or placed by someone else since the load), or a key that placed two orders.
func (r Reconciliation) Problem() string {
	switch {
	case r.PlacedTwice > 0:
		return fmt.Sprintf("%d idempotency keys placed more than one order", r.PlacedTwice)
	case r.Placed < r.Acknowledged:
		return fmt.Sprintf("%d acknowledged orders are not in the database: lost", r.Acknowledged-r.Placed)
	case r.Placed > r.Acknowledged+r.Ambiguous:
		return fmt.Sprintf("%d orders more than were acknowledged or ambiguous: placed twice, or by another run since the load (reset the "+
			"database before the run)",
			r.Placed-r.Acknowledged-r.Ambiguous)
	}
	return ""
}
