package htmlreport

import (
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// The per-second percentile charts follow the one samples rule: a second with too few passed
// transactions draws no point for that percentile (a p99 needs 1,000, a p90 100, the median
// 20 with the default bound), as the tables show "—" — here a 50-transaction second draws a
// median but no p90, a 500-transaction second a p90 but no p99, a 2,000-transaction second all
// three; each transaction's p90 line likewise; the note says so.
// Mutant (scripts/mutants.d/samples-series-ignored): secondPercentile drawing every point.
func TestSeriesPercentilesNeedSamples(t *testing.T) {
	r := sample(100)
	r.Series = []report.SeriesPoint{
		{Second: 1, Phase: "steady", TPS: 50, P50Ms: 1, P90Ms: 2, P99Ms: 3,
			Transactions: []report.TxSecond{{Name: "home", TPS: 50, P90Ms: 2}}},
		{Second: 2, Phase: "steady", TPS: 500, P50Ms: 1, P90Ms: 2, P99Ms: 3,
			Transactions: []report.TxSecond{{Name: "home", TPS: 500, P90Ms: 2}}},
		{Second: 3, Phase: "steady", TPS: 2000, P50Ms: 1, P90Ms: 2, P99Ms: 3,
			Transactions: []report.TxSecond{{Name: "home", TPS: 2000, P90Ms: 2}}},
	}
	var latency *chartSpec
	for _, c := range timeCharts(r) {
		if c.ID == "latency" {
			latency = &c
		}
	}
	if latency == nil {
		t.Fatal("no latency chart")
	}
	drawn := func(vs []*float64) string {
		var b strings.Builder
		for _, v := range vs {
			if v == nil {
				b.WriteByte('-')
			} else {
				b.WriteByte('x')
			}
		}
		return b.String()
	}
	want := map[string]string{"p50": "xxx", "p90": "-xx", "p99": "--x"}
	for _, s := range latency.Series {
		if got := drawn(s.Values); got != want[s.Label] {
			t.Errorf("%s drawn in seconds %s, want %s", s.Label, got, want[s.Label])
		}
	}
	if !strings.Contains(latency.Note, "drawn only in the seconds with enough passed transactions for it: 1000 for a p99, 100 for a p90") {
		t.Errorf("note %q", latency.Note)
	}
	tx := txLatencyChart(r)
	if tx == nil {
		t.Fatal("no per-transaction chart")
	}
	for _, s := range tx.Series {
		if s.Label == "home" && drawn(s.Values) != "-xx" {
			t.Errorf("home's p90 drawn in seconds %s, want -xx", drawn(s.Values))
		}
	}
	if u := newLiveUpdate(r); u.P90 != "2.00 ms" && u.P90 != report.FormatMs(2) {
		t.Errorf("live p90 %q", u.P90)
	}
	r.Series = r.Series[:1]
	if u := newLiveUpdate(r); u.P90 != "—" || u.P50 == "—" {
		t.Errorf("live p50 %q p90 %q from 50 transactions", u.P50, u.P90)
	}
}
