package htmlreport

import (
	"bytes"
	"html"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// shownCell is one cell of a comparison table as the page shows it.
type shownCell struct{ Class, Delta string }

var (
	cellRE  = regexp.MustCompile(`<td(?: class="([^"]*)")?(?: title="[^"]*")?>[^<]*(?:<span class="range">[^<]*</span>)?(?:<span class="delta">([^<]*)</span>)?</td>`)
	tbodyRE = regexp.MustCompile(`(?s)<tbody>.*?</tbody>`)
)

// rowCells returns the cells of the row headed name in the page's tables.
func rowCells(t *testing.T, page, name string) []shownCell {
	t.Helper()
	head := "<tr><th>" + html.EscapeString(name) + "</th>"
	for _, body := range tbodyRE.FindAllString(page, -1) {
		i := strings.Index(body, head)
		if i < 0 {
			continue
		}
		row := body[i+len(head):]
		row = row[:strings.Index(row, "</tr>")]
		var out []shownCell
		for _, m := range cellRE.FindAllStringSubmatch(row, -1) {
			out = append(out, shownCell{m[1], html.UnescapeString(m[2])})
		}
		return out
	}
	t.Fatalf("no row %q on the page", name)
	return nil
}

// repeated makes r a measurement repeated five times whose runs' total TPS and p90, and each
// transaction's p90, are r's own times 1.000, 1.001, … 1.004 (so the median is r's times 1.002,
// and two such runs of equal values are within the noise of each other).
func repeated(r *report.Results) *report.Results {
	for k := range 5 {
		f := 1 + float64(k)/1000
		rep := report.RepeatOf(k+1, r)
		rep.Total.TPS *= f
		rep.Total.P90Ms *= f
		rep.Transactions = nil
		for _, tx := range r.Transactions {
			tx.TPS *= f
			tx.P90Ms *= f
			rep.Transactions = append(rep.Transactions, tx)
		}
		r.Repeats = append(r.Repeats, rep)
	}
	return r
}

// TestCompareDeltasAgainstBaseline: three measurements, each repeated five times, at 100, 150
// and 150 TPS, the second with its p90 doubled. Every change is tested against the first
// (the baseline), so TPS shows +50.0 % twice, marked better; p90 — where lower is better —
// shows +100.0 % marked worse for the second and within the noise for the third; in the
// headline and in the transactions' table alike.
//
// Mutants killed: deltas against the previous run (report.Compare and relative given
// runs[i-1] in statCells: the third run is within the noise of the second); p90 "higher is
// better" (HigherBetter on report.MetricP90, or `higher` true for the transactions' p90 in
// newCompareView: the doubled p90 marked better).
func TestCompareDeltasAgainstBaseline(t *testing.T) {
	slow := sample(150)
	slow.Total.P90Ms *= 2
	for i := range slow.Transactions {
		slow.Transactions[i].P90Ms *= 2
	}
	var buf bytes.Buffer
	if err := RenderCompare(&buf, []Run{{"base", repeated(sample(100))}, {"slow", repeated(slow)}, {"fast", repeated(sample(150))}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	type want struct{ class, delta string } // delta: how the change begins ("" for the baseline)
	check := func(what string, got []shownCell, ws ...want) {
		t.Helper()
		if len(got) < len(ws) {
			t.Fatalf("%s: cells %+v, want %+v", what, got, ws)
		}
		for i, w := range ws {
			if got[i].Class != w.class || !strings.HasPrefix(got[i].Delta, w.delta) || i == 0 && got[i].Delta != "" {
				t.Errorf("%s, run %d: %+v, want class %q and a change beginning %q", what, i+1, got[i], w.class, w.delta)
			}
		}
	}
	check("headline TPS", rowCells(t, page, "Steady-state TPS"), want{}, want{"better", "+50.0 %"}, want{"better", "+50.0 %"})
	check("headline p90", rowCells(t, page, "p90 (ms)"), want{}, want{"worse", "+100.0 %"}, want{"noise", ""})
	login := rowCells(t, page, "login") // TPS, then p90, then failed: one cell per run each
	check("login TPS", login, want{}, want{"better", "+50.0 %"}, want{"better", "+50.0 %"})
	check("login p90", login[3:], want{}, want{"worse", "+100.0 %"}, want{"noise", ""})
}

// The comparison page of repeated runs draws its per-transaction bars from the same medians as
// its headline and tables, not from the last run (whose figures the results hold in full): here
// the last run's login measured ten times the median of its five runs.
// Mutant (scripts/mutants.d/compare-tx-bars-last-run): the bars from the last run's transactions.
func TestCompareTxBarsAreMedians(t *testing.T) {
	r := repeated(sample(100))
	r.Transactions[0].TPS *= 10 // the last run, held in full
	v := newCompareView([]Run{{"base", r}, {"other", repeated(sample(100))}})
	var bars chartSpec
	for _, c := range v.Charts {
		if c.ID == "cmp-tx-tps" {
			bars = c
		}
	}
	if len(bars.Series) != 2 || bars.Series[0].Values[0] == nil {
		t.Fatalf("no per-transaction throughput bars: %+v", bars)
	}
	if got, want := *bars.Series[0].Values[0], 50*1.002; math.Abs(got-want) > 1e-9 {
		t.Errorf("login's bar %.3f, want the median of the runs %.3f (the table's %s)", got, want, v.Tx[0].TPS[0].Value)
	}
}
