package htmlreport

import (
	"encoding/json"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// recordedSearch is the results of a real short capacity search of the default StockTrader run
// (tradebench run --peak-start 20 --peak-max 160 --peak-step-duration 5s --peak-confirm 10s
// --peak-ramp-up 2s --ramp-down 1s, on a busy 2-core machine): 8 of the scenario's transactions
// at about 157 TPS in all, none with the passed transactions a p90 needs in any one second.
func recordedSearch(t *testing.T) *report.Results {
	t.Helper()
	r, err := report.ReadFile("testdata/search-160.json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// chartsOf reads the chart data back out of a rendered page, as the page's script gets it.
func chartsOf(t *testing.T, page string) map[string]chartSpec {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script>window.TRADEBENCH_CHARTS = (.*?);</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no chart data on the page")
	}
	var cs []chartSpec
	if err := json.Unmarshal([]byte(m[1]), &cs); err != nil {
		t.Fatal(err)
	}
	out := map[string]chartSpec{}
	for _, c := range cs {
		out[c.ID] = c
	}
	return out
}

// The default report of a real search has no empty or misleading part: the capacity card
// states the capacity with its ± as the terminal does ("157 ± 37"); the latency chart has no
// legend entry for the p99 it never draws (no second had 1,000 passed transactions); the p90
// per transaction is a bar per transaction over the measured window (each second had too few
// for one: the per-second chart was empty) with login, 21 passed, left out and named; a
// transaction the run never completed is a row of 0.
// Mutants: report-card-without-interval, report-undrawn-legend, report-tx-p90-per-second-only,
// zero-transactions-dropped (in the driver, TestSummaryInScenarioOrder).
func TestDefaultReportOfARecordedSearch(t *testing.T) {
	r := recordedSearch(t)
	r.Transactions = append(r.Transactions, report.Transaction{Name: "sell"})
	page := render(t, r)
	text := html.UnescapeString(page)
	if !strings.Contains(text, `<span class="value">157 ± 37</span><span class="unit">±: where a second run lands (95 %) · at 160 users</span>`) {
		t.Errorf("the capacity card lacks the ± the terminal states (157 ± 37): %s", text[strings.Index(text, `<div class="cards">`):][:600])
	}
	cs := chartsOf(t, page)
	var labels []string
	for _, s := range cs["latency"].Series {
		labels = append(labels, s.Label)
	}
	if !slices.Equal(labels, []string{"p50", "p90"}) {
		t.Errorf("the latency chart's legend %v, want p50 and p90 only (no second has a p99)", labels)
	}
	if !strings.Contains(text, "No second had enough for its p99: not drawn") {
		t.Error("the latency chart's note does not say why p99 is missing")
	}
	if _, ok := cs["tx-latency"]; ok {
		t.Error("the per-second p90 per transaction is drawn though no transaction has a point in it")
	}
	bars, ok := cs["tx-p90"]
	if !ok {
		t.Fatal("no p90 per transaction over the window")
	}
	drawn := 0
	for i, v := range bars.Series[0].Values {
		name := bars.Labels[i]
		switch {
		case name == "login" || name == "sell":
			if v != nil {
				t.Errorf("%s has a p90 bar from too few samples", name)
			}
		case v == nil:
			t.Errorf("%s has no p90 bar", name)
		default:
			drawn++
		}
	}
	if drawn != 7 || !strings.Contains(text, "No bar for login, sell: fewer than the 100 passed transactions a p90 needs") {
		t.Errorf("%d bars drawn, want 7, and the note naming login and sell", drawn)
	}
	if !strings.Contains(page, "<tr><td>sell</td><td>0</td><td>0</td>") {
		t.Error("the transaction that never completed is not a row of 0")
	}
}

// The peak's p90 above the search's own bound is said beside the figure: on the p90 card and in
// the peak search's sentence; below the bound, nothing is flagged.
// Mutant: report-peak-p90-over-unflagged.
func TestPeakP90OverItsBoundFlagged(t *testing.T) {
	r := recordedSearch(t)
	const over = "above the search's own p90 bound of 500 ms"
	if page := html.UnescapeString(render(t, r)); strings.Contains(page, over) || strings.Contains(page, "card flagged") {
		t.Error("a p90 of 11.7 ms flagged against a 500 ms bound")
	}
	r.Peak.PeakP90Ms = 562
	page := html.UnescapeString(render(t, r))
	if !strings.Contains(page, `<div class="card flagged"><span class="label">p90</span>`) || strings.Count(page, over) != 2 {
		t.Errorf("a peak p90 of 562 ms above the 500 ms bound is not flagged on the card and in the text (%d mentions)", strings.Count(page, over))
	}
	if !strings.Contains(page, "p90 562 ms <strong class=\"fail\">— "+over) {
		t.Error("the peak search's sentence does not flag its p90 beside the figure")
	}
}

// The search's table says what its "✓" means and shows each step's note in the page, not only
// in a hover tooltip: the recorded search's re-measured steps carry theirs.
// Mutant: report-step-notes-hover-only.
func TestStepTableLegendAndNotes(t *testing.T) {
	r := recordedSearch(t)
	page := html.UnescapeString(render(t, r))
	if !strings.Contains(page, "✓ a good step: within the search's bounds") {
		t.Error("the ✓ has no legend")
	}
	shown := 0
	for _, s := range r.Peak.Steps {
		if s.Note == "" {
			continue
		}
		if strings.Contains(page, `<td class="step-note">`+s.Note+`</td>`) {
			shown++
		}
		if strings.Contains(page, `title="`+s.Note+`"`) {
			t.Errorf("step %d's note only in a tooltip", s.Step)
		}
	}
	if shown == 0 {
		t.Fatal("no step's note shown in the table (the recorded search re-measured steps)")
	}
}
