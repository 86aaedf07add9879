package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// accessRun is a StockTrader run (repeated five times) whose web tier reached its services by
// mode, with p90 scaled by slower.
func accessRun(mode string, slower float64) *report.Results {
	r := sample(100)
	r.Disclosure.Configuration = []byte(`{"access":{"mode":"` + mode + `"},"orders":{"mode":"sync"}}`)
	r.Total.P90Ms *= slower
	for i := range r.Transactions {
		r.Transactions[i].P90Ms *= slower
	}
	return repeated(r)
}

// TestCompareColoursAccessModes: comparing in-process with REST access — the system variant a
// user compares on purpose — colours the significant p90 difference in the headline (it was
// greyed as "setting changed" with the whole table) and names what was compared once.
// Mutant: compare-variant-as-load (the access mode counted a load setting again) fails.
func TestCompareColoursAccessModes(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderCompare(&buf, []Run{{"in-process", accessRun("inprocess", 1)}, {"REST", accessRun("rest", 1.84)}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	p90 := rowCells(t, page, "p90 (ms)")
	if p90[1].Class != "worse" || !strings.HasPrefix(p90[1].Delta, "+84.0 %") {
		t.Errorf("headline p90 of REST: %+v, want coloured worse, +84.0 %%", p90[1])
	}
	if tps := rowCells(t, page, "Steady-state TPS"); tps[1].Class != "noise" {
		t.Errorf("headline TPS of REST (the same): %+v, want within the noise", tps[1])
	}
	if login := rowCells(t, page, "login"); login[3].Class != "worse" {
		t.Errorf("login's p90 of REST: %+v, want coloured worse", login[3])
	}
	if strings.Contains(page, "setting changed") || strings.Contains(page, "offered another load") {
		t.Error("the access mode is treated as a load setting")
	}
	if !strings.Contains(page, "Compared: REST: access.mode inprocess → rest.") {
		t.Error("the page does not name the variant compared")
	}
}

// TestCompareLoadChangeSaidOnce: a run at more users has its throughput shown uncoloured (not
// "better"), with the reason said once above the table rather than in every cell; its p90 is
// still tested. Mutant: compare-load-coloured (isThroughput false) fails.
func TestCompareLoadChangeSaidOnce(t *testing.T) {
	more := sample(150)
	more.Settings.Users = 80
	more.Total.P90Ms *= 2
	var buf bytes.Buffer
	if err := RenderCompare(&buf, []Run{{"50 users", repeated(sample(100))}, {"80 users", repeated(more)}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	tps := rowCells(t, page, "Steady-state TPS")
	if tps[1].Class != classIncomparable || !strings.HasPrefix(tps[1].Delta, "+50.0 %") {
		t.Errorf("TPS at another load: %+v, want shown uncoloured", tps[1])
	}
	if login := rowCells(t, page, "login"); login[1].Class != classIncomparable {
		t.Errorf("login's TPS at another load: %+v, want uncoloured", login[1])
	}
	if p90 := rowCells(t, page, "p90 (ms)"); p90[1].Class != "worse" {
		t.Errorf("p90 at another load: %+v, want tested and coloured", p90[1])
	}
	if n := strings.Count(page, "offered another load"); n != 1 {
		t.Errorf("the load change is said %d times, want once", n)
	}
}
