package htmlreport

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"
)

// shownCell is one cell of a comparison table as the page shows it.
type shownCell struct{ Class, Delta string }

var (
	cellRE  = regexp.MustCompile(`<td(?: class="([^"]*)")?>[^<]*(?:<span class="delta">([^<]*)</span>)?</td>`)
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

// TestCompareDeltasAgainstBaseline: three runs at 100, 150 and 150 TPS, the second with its
// p90 doubled. Every delta is against the first run, so TPS shows +50.0 % twice (better), and
// p90 — where lower is better — shows +100.0 % marked worse for the second run and no change
// for the third; in the headline and in the transactions table alike.
//
// Mutants killed, in compare.go: deltas against the previous run (`delta(vals[i-1], …)` in
// cells: the third run shows 0.0 %); p90 "higher is better" in the headline row or in the
// transactions' p90 (the doubled p90 marked better).
func TestCompareDeltasAgainstBaseline(t *testing.T) {
	slow := sample(150)
	slow.Total.P90Ms *= 2
	for i := range slow.Transactions {
		slow.Transactions[i].P90Ms *= 2
	}
	var buf bytes.Buffer
	if err := RenderCompare(&buf, []Run{{"base", sample(100)}, {"slow", slow}, {"fast", sample(150)}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	check := func(what string, got []shownCell, want ...shownCell) {
		t.Helper()
		if len(got) < len(want) {
			t.Fatalf("%s: cells %+v, want %+v", what, got, want)
		}
		for i, w := range want {
			if got[i] != w {
				t.Errorf("%s, run %d: %+v, want %+v", what, i+1, got[i], w)
			}
		}
	}
	check("headline TPS", rowCells(t, page, "Steady-state TPS"), shownCell{}, shownCell{"better", "+50.0 %"}, shownCell{"better", "+50.0 %"})
	check("headline p90", rowCells(t, page, "p90 (ms)"), shownCell{}, shownCell{"worse", "+100.0 %"}, shownCell{"", "0.0 %"})
	login := rowCells(t, page, "login") // TPS, then p90, then failed: one cell per run each
	check("login TPS", login, shownCell{}, shownCell{"better", "+50.0 %"}, shownCell{"better", "+50.0 %"})
	check("login p90", login[3:], shownCell{}, shownCell{"worse", "+100.0 %"}, shownCell{"", "0.0 %"})
}
