// Package audit checks a StockTrader database after a run: the invariants that prove no order
// was lost, left half-done or applied twice. It is what `tradebench audit` and the end of every
// `tradebench run` call, and what tests call directly on a store:
//
//	sum, err := audit.Run(ctx, st, audit.Options{})        // st: a loaded store.Store
//	if err != nil { … }                                     // could not audit (not loaded, I/O)
//	if !sum.Passed { t.Fatalf("audit: %v", sum.Violations) } // sum.ByKind["balance"] etc.
//
// The invariants (the order lifecycle and Trade's business rules, see package trade):
//   - every order is in a final state (closed, completed or cancelled); with
//     Options.AllowOpen the open and processing ones are listed but are not violations;
//   - each account's balance is its opening balance plus the sells minus the buys and fees of
//     its closed and completed orders (the loaded orders included: the loader makes the
//     loaded balances satisfy it, and Reset restores them);
//   - each holding was created by exactly one completed buy and holds what that buy bought
//     less what the completed sells of it sold; every buy not fully sold still has its holding;
//   - each quote's volume is its loaded volume plus the shares of the closed and completed
//     orders in its symbol placed since the load (the loaded quotes, kept for Reset, are the
//     baseline);
//   - no balance is negative: every buy is checked against the balance it debits;
//   - no order is applied twice: each of the above is off by exactly one order's amounts when
//     one is, and a holding credited by two buys or sold below zero is its own violation;
//   - no idempotency key placed two orders: each key is stored once, names at most one order,
//     no order is named by two keys, and a buy's or sell's key names an order of its kind and
//     user (a request sent twice under one key was placed once).
//
// The checks are set-based queries in the database (store.Auditor), returning only the
// violating rows; this package only words them.
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
)

// DefaultLimit is how many violations of each kind are listed when Options.Limit is 0; every
// violation is still counted.
const DefaultLimit = 100

// Options tune an audit.
type Options struct {
	// AllowOpen lists orders that are not final (open, processing) without counting them as
	// violations: for auditing while order processors are still draining a queue.
	AllowOpen bool
	// Limit is how many violations of each kind are listed (0 = DefaultLimit).
	Limit int
}

// Checks is the number of invariants an audit checks (the report's "checks").
const Checks = 7

// Kinds of violation in the summary's ByKind, named for what broke.
const (
	KindOpen     = "open-order" // an order not in a final state
	KindOrder    = "order"      // an order pointing at nothing: no account, no quote, no holding
	KindBalance  = "balance"
	KindHolding  = "holding"
	KindVolume   = "volume"
	KindApplied2 = "applied-twice" // a holding credited by two buys, or sold more than bought
	KindNegative = "negative-balance"
	KindKey      = "key" // an idempotency key that placed two orders, or names a wrong one
)

// kindOf groups the store's row kinds into the report's kinds.
var kindOf = map[string]string{
	store.AuditOpenOrder:     KindOpen,
	store.AuditOrphanOrder:   KindOrder,
	store.AuditBuyUnlinked:   KindOrder,
	store.AuditBalance:       KindBalance,
	store.AuditHoldingNoBuy:  KindHolding,
	store.AuditHoldingQty:    KindHolding,
	store.AuditHoldingOwner:  KindHolding,
	store.AuditHoldingLost:   KindHolding,
	store.AuditForeignSell:   KindHolding,
	store.AuditTwoBuys:       KindApplied2,
	store.AuditOversold:      KindApplied2,
	store.AuditVolume:        KindVolume,
	store.AuditQuoteNotBased: KindVolume,
	store.AuditNegative:      KindNegative,
	store.AuditKeyTwice:      KindKey,
	store.AuditKeyOrder:      KindKey,
}

// Summary is what an audit found. Its fields are those of the results' audit section
// (report.AuditSummary), so a job converts one into the other: report.AuditSummary(*s).
type Summary struct {
	Passed bool `json:"passed"`
	Checks int  `json:"checks"` // invariants checked
	// Violations lists violations readably, "kind: what", at most a limit of each kind.
	Violations []string `json:"violations,omitempty"`
	// OpenOrders counts orders not in a final state (violations unless allowed).
	OpenOrders int64 `json:"open_orders"`
	// ViolationCount counts every violation, listed or not; ByKind splits it by kind.
	ViolationCount int64            `json:"violation_count"`
	ByKind         map[string]int64 `json:"by_kind,omitempty"`
	// Open lists open orders when they were allowed (not violations).
	Open []string `json:"open,omitempty"`
	// What was examined, and how long the audit took.
	Accounts int64 `json:"accounts"`
	Orders   int64 `json:"orders"`
	// Placed counts the orders placed since the load (or the last reset).
	Placed   int64   `json:"placed"`
	Holdings int64   `json:"holdings"`
	Quotes   int64   `json:"quotes"`
	Seconds  float64 `json:"seconds"`
}

// Failed is the error of an audit (or a run whose audit) found violations: a type of its own,
// so a caller can tell "the database does not add up" from "the audit could not run".
type Failed struct {
	Violations int
	// Why, when set, says what failed instead of the count (orders that do not reconcile).
	Why string
}

func (e *Failed) Error() string {
	if e.Why != "" {
		return e.Why
	}
	return fmt.Sprintf("the audit found %d violations", e.Violations)
}

// Err is the audit's outcome as an error: a *Failed counting the violations, nil when it passed.
func (s *Summary) Err() error {
	if s.Passed {
		return nil
	}
	return &Failed{Violations: int(s.ViolationCount)}
}

// WriteJSON prints a summary (or one with more beside it) as indented JSON (the command's --json; the same fields as a run's
// results carry).
func WriteJSON(w io.Writer, s any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// Run audits st, which must be loaded (store.ErrNotLoaded otherwise) and implement
// store.Auditor (both built-in stores do). The error is for an audit that could not run; what
// it found is in the summary (Passed false, Violations listed, ByKind counted).
func Run(ctx context.Context, st store.Store, opts Options) (*Summary, error) {
	a, ok := st.(store.Auditor)
	if !ok {
		return nil, fmt.Errorf("audit: the %s store cannot be audited", st.Kind())
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	start := time.Now()
	rep, err := a.Audit(ctx, limit)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return summarize(rep, opts, limit, time.Since(start)), nil
}

func summarize(rep store.AuditReport, opts Options, limit int, took time.Duration) *Summary {
	s := &Summary{
		Checks:   Checks,
		ByKind:   map[string]int64{},
		Accounts: rep.Scope.Accounts,
		Orders:   rep.Scope.Orders,
		Placed:   rep.Scope.Placed,
		Holdings: rep.Scope.Holdings,
		Quotes:   rep.Scope.Quotes,
		Seconds:  took.Seconds(),
	}
	for k, n := range rep.Counts {
		kind := kindOf[k]
		if kind == "" {
			kind = k
		}
		if kind == KindOpen {
			s.OpenOrders += n
			if opts.AllowOpen {
				continue
			}
		}
		s.ByKind[kind] += n
		s.ViolationCount += n
	}
	listed := map[string]int{}
	for _, r := range rep.Rows {
		kind := kindOf[r.Kind]
		if kind == KindOpen && opts.AllowOpen {
			if len(s.Open) < limit {
				s.Open = append(s.Open, describe(r))
			}
			continue
		}
		// The store caps each of its row kinds; the report caps each of its own kinds.
		if listed[kind]++; listed[kind] <= limit {
			s.Violations = append(s.Violations, kind+": "+describe(r))
		}
	}
	if len(s.ByKind) == 0 {
		s.ByKind = nil
	}
	s.Passed = s.ViolationCount == 0
	return s
}

// describe words one violating row, money in exact decimal.
func describe(r store.AuditRow) string {
	acct := fmt.Sprintf("account %d", r.AccountID)
	if r.UserID != "" {
		acct = fmt.Sprintf("account %d (%s)", r.AccountID, r.UserID)
	}
	switch r.Kind {
	case store.AuditOpenOrder:
		return fmt.Sprintf("order %d of %s, %d × %s, is still %s", r.OrderID, acct, r.Actual, r.Symbol, r.Status)
	case store.AuditOrphanOrder:
		switch {
		case r.OrderID != 0:
			return fmt.Sprintf("order %d of %s has no known type: %q", r.OrderID, acct, r.Status)
		case r.Symbol != "":
			return fmt.Sprintf("orders since the load in symbol %s (%d shares) have no quote", r.Symbol, r.Actual)
		}
		return fmt.Sprintf("completed orders of account %d, which does not exist, moved %s", r.AccountID, signed(trade.Money(r.Expected)))
	case store.AuditBuyUnlinked:
		return fmt.Sprintf("completed buy order %d of %s (%d × %s) names no holding", r.OrderID, acct, r.Actual, r.Symbol)
	case store.AuditBalance:
		diff := trade.Money(r.Actual - r.Expected)
		return fmt.Sprintf("%s has balance %s, expected %s (opening balance + sells − buys − fees), off by %s",
			acct, trade.Money(r.Actual), trade.Money(r.Expected), signed(diff))
	case store.AuditHoldingNoBuy:
		return fmt.Sprintf("holding %d of %s (%d × %s) was created by no completed buy order", r.HoldingID, acct, r.Actual, r.Symbol)
	case store.AuditHoldingQty:
		return fmt.Sprintf("holding %d of %s (%s, buy order %d) holds %d shares, expected %d (bought − sold)", r.HoldingID, acct, r.Symbol,
			r.OrderID, r.Actual, r.Expected)
	case store.AuditHoldingOwner:
		return fmt.Sprintf("holding %d of %s (%s) differs from its buy order %d in account, symbol or purchase price", r.HoldingID, acct,
			r.Symbol, r.OrderID)
	case store.AuditHoldingLost:
		return fmt.Sprintf("holding %d of %s (%s, buy order %d) is gone, but %d bought shares were never sold", r.HoldingID, acct, r.Symbol,
			r.OrderID, r.Expected)
	case store.AuditForeignSell:
		return fmt.Sprintf("holding %d of %s (%s, buy order %d) was sold by another account or in another symbol", r.HoldingID, acct, r.Symbol,
			r.OrderID)
	case store.AuditTwoBuys:
		return fmt.Sprintf("holding %d of %s (%s) was credited by %d completed buy orders, expected 1", r.HoldingID, acct, r.Symbol, r.Actual)
	case store.AuditOversold:
		return fmt.Sprintf("holding %d of %s (%s, buy order %d): %d shares sold, but only %d bought", r.HoldingID, acct, r.Symbol, r.OrderID,
			r.Actual, r.Expected)
	case store.AuditVolume:
		return fmt.Sprintf("quote %s has volume %d, expected %d (loaded volume + shares of the orders since), off by %+d", r.Symbol, r.Actual,
			r.Expected, r.Actual-r.Expected)
	case store.AuditQuoteNotBased:
		return fmt.Sprintf("quote %s is not in the loaded data set (volume %d has no baseline)", r.Symbol, r.Actual)
	case store.AuditNegative:
		return fmt.Sprintf("%s is overdrawn: balance %s", acct, trade.Money(r.Actual))
	case store.AuditKeyTwice:
		return fmt.Sprintf("idempotency key %q of user %q is stored %d times or names order %d with another key, expected once", r.Status,
			r.UserID, r.Actual, r.OrderID)
	case store.AuditKeyOrder:
		return fmt.Sprintf("idempotency key %q of user %q names order %d, which is missing or another user's or kind's", r.Status, r.UserID,
			r.OrderID)
	}
	return fmt.Sprintf("%s: %s order %d holding %d %s expected %d actual %d", r.Kind, acct, r.OrderID, r.HoldingID, r.Symbol, r.Expected, r.Actual)
}

func signed(m trade.Money) string {
	if m > 0 {
		return "+" + m.String()
	}
	return m.String()
}

// Write prints a summary for a terminal: the verdict, what was examined, the counts by kind
// and the listed violations (and, with AllowOpen, the open orders).
func Write(w io.Writer, s *Summary) {
	var b strings.Builder
	verdict := "PASSED"
	if !s.Passed {
		verdict = fmt.Sprintf("FAILED: %d violations", s.ViolationCount)
	}
	fmt.Fprintf(&b, "audit %s — %d checks over %d accounts, %d orders, %d holdings, %d quotes in %.2fs\n",
		verdict, s.Checks, s.Accounts, s.Orders, s.Holdings, s.Quotes, s.Seconds)
	kinds := make([]string, 0, len(s.ByKind))
	for k := range s.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&b, "  %-14s %d\n", k, s.ByKind[k])
	}
	for _, v := range s.Violations {
		fmt.Fprintf(&b, "  - %s\n", v)
	}
	if n := s.ViolationCount - int64(len(s.Violations)); n > 0 {
		fmt.Fprintf(&b, "  … and %d more not listed\n", n)
	}
	if len(s.Open) > 0 || (s.OpenOrders > 0 && s.Passed) {
		fmt.Fprintf(&b, "open orders (allowed): %d\n", s.OpenOrders)
		for _, o := range s.Open {
			fmt.Fprintf(&b, "  - %s\n", o)
		}
		if n := s.OpenOrders - int64(len(s.Open)); n > 0 {
			fmt.Fprintf(&b, "  … and %d more not listed\n", n)
		}
	}
	_, _ = io.WriteString(w, b.String())
}
