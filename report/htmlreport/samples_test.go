package htmlreport

import (
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// One samples rule everywhere: a comparison shows a percentile only where its window had
// enough samples — the headline rows, each transaction's p90 and the bars — and the agents
// table a p99 only from enough requests, as a single run's transactions table does.
// Mutants (scripts/mutants.d/samples-compare-ignored, samples-tx-ignored): statCells or the
// transaction rows reading the percentile whatever its samples — a number where "—" belongs.
func TestSamplesRuleInComparisons(t *testing.T) {
	a, b := sample(100), sample(120) // 599 passed: a p90, no p99
	b.Transactions[0].Pass = 10      // 10 logins: no p90 for them
	v := newCompareView([]Run{{"a", a}, {"b", b}})
	for _, row := range v.Metrics {
		switch row.Name {
		case report.MetricP99.Name:
			for i, c := range row.Cells {
				if c.Value != "—" || c.Title != report.NotEnoughSamples || c.Delta != "" {
					t.Errorf("p99 of run %d from 599 samples: %+v", i, c)
				}
			}
		case report.MetricP90.Name:
			if row.Cells[0].Value == "—" || row.Cells[1].Delta == "" {
				t.Errorf("p90 from 599 samples not shown: %+v", row.Cells)
			}
		}
	}
	for _, row := range v.Tx {
		if row.Name == "login" && (row.P90[1].Value != "—" || row.P90[0].Value == "—") {
			t.Errorf("login p90: %+v", row.P90)
		}
	}
	for _, c := range v.Charts {
		switch c.ID {
		case "cmp-latency":
			if c.Series[2].Values[0] != nil {
				t.Errorf("a p99 bar from 599 samples")
			}
		case "cmp-tx-p90":
			if c.Series[1].Values[0] != nil || c.Series[0].Values[0] == nil {
				t.Errorf("login p90 bars: %v", c.Series)
			}
		}
	}
	// the agents table
	r := sample(100)
	r.Agents = []report.AgentResult{{Name: "a1", Host: "h", Requests: 300, P99Ms: 12.5, State: report.AgentDone},
		{Name: "a2", Host: "h", Requests: 5000, P99Ms: 7.25, State: report.AgentDone}}
	page := render(t, r)
	if !strings.Contains(page, "<td>300</td><td>0</td><td>not enough samples</td>") || !strings.Contains(page, "<td>7.25</td>") {
		t.Errorf("agents table: %s", between(page, `id="agents"`, "</section>"))
	}
	var sb strings.Builder
	r.WriteSummary(&sb)
	if strings.Contains(sb.String(), "12.50") || !strings.Contains(sb.String(), "7.25") {
		t.Errorf("summary agents:\n%s", sb.String())
	}
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}
