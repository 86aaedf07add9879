package htmlreport

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// A run where nothing passed shows a red INVALID banner with its reasons, and its p50/p90/p99
// as "—", not as zeros. Mutant: the headline's percentiles read r.Total directly (FormatMs of
// 0 is "0.00"): the "—" assertion failed.
func TestInvalidBanner(t *testing.T) {
	r := report.New("http")
	r.Total = report.Transaction{Name: "total", Count: 400, Errors: 400}
	r.Transactions = []report.Transaction{r.Total}
	r.Judge(report.DefaultRules())
	page := render(t, r)
	if !strings.Contains(page, `class="banner invalid"`) || !strings.Contains(page, "INVALID") || !strings.Contains(page, "nothing passed: 400 transactions, 400 failed") {
		t.Errorf("no INVALID banner with its reason")
	}
	for _, p := range []string{"p50", "p90", "p99"} {
		re := regexp.MustCompile(`<span class="label">` + p + `</span><span class="value">([^<]*)</span>`)
		if m := re.FindStringSubmatch(page); m == nil || m[1] != "—" {
			t.Errorf("headline %s: %v, want —", p, m)
		}
	}
	if !strings.Contains(page, report.NotEnoughSamples) {
		t.Error("the transactions table shows a percentile without samples as a number")
	}
	// a valid run's banner is not red
	ok := sample(100)
	ok.Validity = &report.Validity{Verdict: report.Valid}
	if page := render(t, ok); !strings.Contains(page, `class="banner valid"`) || strings.Contains(page, "banner invalid") {
		t.Error("a valid run has no green banner")
	}
}
