package report

import (
	"cmp"
	"fmt"
	"slices"
)

// What a page draws of a results file is bounded by what a reader can take in, not only by the
// file's size: a results file is anyone's, and one of 30,000 transactions (9.5 MiB, well under
// the size cap) took `report` 18.8 s and 689 MiB and wrote a 25 MB page — every transaction a
// table row, a decoded histogram and a line of the per-transaction chart. The page and the
// comparison draw at most these; the rest is summarised on the page and stays in the file.
const (
	// MaxDrawnTransactions is the most transactions drawn, the busiest by count; the others
	// are summed into one row.
	MaxDrawnTransactions = 100
	// MaxDrawnSeconds is the most seconds of the series drawn: a longer series is drawn from
	// evenly spaced seconds (and every second a phase starts).
	MaxDrawnSeconds = 10_000
	// MaxDrawnItems bounds every other list a page shows (errors, notes, faults, repeats,
	// agents, status codes).
	MaxDrawnItems = 1_000
)

// OthersName is the name of the row that sums the transactions not drawn.
func OthersName(n int) string { return fmt.Sprintf("(%d other transactions)", n) }

// ForDrawing returns r cut to what a page draws (MaxDrawnTransactions, MaxDrawnSeconds,
// MaxDrawnItems), with a note saying what was left out; r itself when nothing is. r is not
// changed: the copy shares what it does not cut.
func (r *Results) ForDrawing() *Results {
	cut := *r
	var said []string
	if n := len(r.Transactions); n > MaxDrawnTransactions {
		txs := slices.Clone(r.Transactions)
		slices.SortStableFunc(txs, func(a, b Transaction) int { return cmp.Compare(b.Count, a.Count) })
		if r.readOthers > 0 {
			n += r.readOthers - 1 // the row the read summed stands for that many
		}
		other := Transaction{Name: OthersName(n - MaxDrawnTransactions + 1)}
		for _, t := range txs[MaxDrawnTransactions-1:] {
			other.Count += t.Count
			other.Pass += t.Pass
			other.Errors += t.Errors
			other.Stop += t.Stop
			other.TPS += t.TPS
		}
		cut.Transactions = append(txs[:MaxDrawnTransactions-1:MaxDrawnTransactions-1], other)
		said = append(said, fmt.Sprintf("the %d busiest of %d transactions (the rest summed in one row)", MaxDrawnTransactions-1, n))
	}
	if n := len(r.Series); n > MaxDrawnSeconds {
		every := (n + MaxDrawnSeconds - 1) / MaxDrawnSeconds
		series := make([]SeriesPoint, 0, MaxDrawnSeconds+16)
		for i, p := range r.Series {
			if i%every == 0 || p.Phase != r.Series[i-1].Phase {
				series = append(series, p)
			}
		}
		cut.Series = series
		said = append(said, fmt.Sprintf("one second in %d of the %d-second series", every, n))
	}
	if len(cut.Transactions) < len(r.Transactions) || hasTxSeconds(cut.Series) {
		// a second's per-transaction breakdown keeps only the transactions drawn
		keep := make(map[string]bool, len(cut.Transactions))
		for _, t := range cut.Transactions {
			keep[t.Name] = true
		}
		series := slices.Clone(cut.Series)
		for i := range series {
			if len(series[i].Transactions) > 0 {
				series[i].Transactions = slices.DeleteFunc(slices.Clone(series[i].Transactions), func(t TxSecond) bool { return !keep[t.Name] })
			}
		}
		cut.Series = series
		if len(cut.Transactions) == len(r.Transactions) {
			said = append(said, "each second's transactions among those of the table")
		}
	}
	items := func(what string, n int) bool {
		if n > MaxDrawnItems {
			said = append(said, fmt.Sprintf("the first %d of %d %s", MaxDrawnItems, n, what))
			return true
		}
		return false
	}
	if items("error groups", len(r.Errors)) {
		cut.Errors = r.Errors[:MaxDrawnItems]
	}
	if items("faults", len(r.Faults)) {
		cut.Faults = r.Faults[:MaxDrawnItems]
	}
	if items("repeats", len(r.Repeats)) {
		cut.Repeats = r.Repeats[:MaxDrawnItems]
	}
	if items("agents", len(r.Agents)) {
		cut.Agents = r.Agents[:MaxDrawnItems]
	}
	if items("status codes", len(r.StatusCodes)) {
		codes := make([]string, 0, len(r.StatusCodes))
		for c := range r.StatusCodes {
			codes = append(codes, c)
		}
		slices.Sort(codes)
		cut.StatusCodes = make(map[string]int64, MaxDrawnItems)
		for _, c := range codes[:MaxDrawnItems] {
			cut.StatusCodes[c] = r.StatusCodes[c]
		}
	}
	if items("notes", len(r.Notes)) {
		cut.Notes = r.Notes[:MaxDrawnItems]
	}
	if len(said) == 0 {
		return r
	}
	note := "drawn: "
	for i, s := range said {
		if i > 0 {
			note += "; "
		}
		note += s
	}
	cut.Notes = append(slices.Clone(cut.Notes), note+" — the results file holds everything")
	return &cut
}

func hasTxSeconds(s []SeriesPoint) bool {
	for i := range s {
		if len(s[i].Transactions) > MaxDrawnTransactions {
			return true
		}
	}
	return false
}
