package driver

import (
	"slices"

	"github.com/tradebench/tradebench/report"
)

// orderTransactions puts the results' transactions in the scenario's order (names), those the
// scenario does not name after them by name: the summary reads the same every run. A
// transaction of the scenario that did not complete once in the measured window is listed
// with a count of 0: a row dropped reads as a transaction the scenario does not have.
func orderTransactions(res *report.Results, names []string) {
	rank := make(map[string]int, len(names))
	for i, n := range names {
		rank[n] = i
	}
	for _, n := range names {
		if !slices.ContainsFunc(res.Transactions, func(t report.Transaction) bool { return t.Name == n }) {
			res.Transactions = append(res.Transactions, report.Transaction{Name: n})
		}
	}
	slices.SortStableFunc(res.Transactions, func(a, b report.Transaction) int {
		ra, oka := rank[a.Name]
		rb, okb := rank[b.Name]
		switch {
		case oka && okb:
			return ra - rb
		case oka:
			return -1
		case okb:
			return 1
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
}
