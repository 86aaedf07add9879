package audit

import (
	"errors"
	"strings"
	"testing"
)

// TestReconciliation: the orders reconcile when every acknowledged one is placed and the rest
// are at most the ambiguous ones; an order lost, one too many or a key that placed two is a
// failure of the audit saying which. Mutant: reconcile-excess-passes (more orders than the
// driver could have caused pass) seen failing it.
func TestReconciliation(t *testing.T) {
	ok := Reconciliation{Placed: 105, Acknowledged: 100, Ambiguous: 7}
	if ok.Err() != nil || ok.String() != "orders: 105 placed, 100 acknowledged, 7 ambiguous (failed after being sent), 0 placed twice" {
		t.Errorf("%s: %v", ok, ok.Err())
	}
	for _, c := range []struct {
		r    Reconciliation
		want string
	}{
		{Reconciliation{Placed: 99, Acknowledged: 100, Ambiguous: 7}, "1 acknowledged orders are not in the database: lost"},
		{Reconciliation{Placed: 108, Acknowledged: 100, Ambiguous: 7}, "1 orders more than were acknowledged or ambiguous"},
		{Reconciliation{Placed: 101, Acknowledged: 100, Ambiguous: 7, PlacedTwice: 1}, "1 idempotency keys placed more than one order"},
	} {
		var f *Failed
		if err := c.r.Err(); !errors.As(err, &f) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an audit failure saying %q", c.r, err, c.want)
		}
	}
}
