package htmlreport

import (
	"bytes"
	_ "embed"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/headless"
	"github.com/tradebench/tradebench/report"
)

//go:embed testdata/chartcheck.js
var chartCheckJS string

var defectsAttr = regexp.MustCompile(`data-chart-defects="([^"]*)"`)

// chartDefects opens a page in headless Chromium with testdata/chartcheck.js run after the
// page's own scripts, and returns what it measured wrong: tick labels whose boxes overlap or
// touch, legend entries without a name or ending in an empty "name:".
func chartDefects(t *testing.T, page []byte, want int) []string {
	t.Helper()
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		t.Fatal("no </body> in the page")
	}
	withCheck := append(append(append([]byte{}, page[:i]...), "<script>"+chartCheckJS+"</script>"...), page[i:]...)
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, withCheck, 0o644); err != nil {
		t.Fatal(err)
	}
	dom := drawnCharts(t, path, want)
	m := defectsAttr.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the measuring script did not run (no data-chart-defects)")
	}
	if m[1] == "" {
		return nil
	}
	return strings.Split(html.UnescapeString(m[1]), "\n")
}

// longRun is a sample whose time axes span minutes of clock time, as a real run's do.
func longRun() *report.Results {
	r := searched()
	r.StartedAt = time.Date(2026, 11, 26, 23, 28, 14, 0, time.UTC)
	r.Series = nil
	for s := 0; s < 160; s++ {
		phase := "steady"
		if s < 10 {
			phase = "ramp-up"
		}
		r.Series = append(r.Series, report.SeriesPoint{Second: s, Phase: phase, TPS: 1250 + float64(s%9)*20, Hits: 1300,
			P50Ms: 30, P90Ms: 349, P99Ms: 888, Users: 1400, Transactions: []report.TxSecond{{Name: "login", P90Ms: 800}, {Name: "buy", P90Ms: 185}}})
	}
	return r
}

// TestChartsHaveNoOverlappingTicksNorEmptyLegends measures, in Chromium, every chart of a
// report and of a comparison: no two tick labels of an axis overlap or touch (the clock-time
// axis ran "23:28:2823:28:33" together), and no legend entry is an empty "name:" (each ended so
// while the cursor was off the chart).
//
// Mutants (scripts/mutants.d): chart-x-space-default (the clock axis at uPlot's default 50 px
// between ticks) fails on the ticks; chart-legend-empty-colon (the legend's ":" kept while the
// value is empty) fails on the legends.
func TestChartsHaveNoOverlappingTicksNorEmptyLegends(t *testing.T) {
	headless.Require(t)
	for _, tc := range []struct {
		name string
		page func() []byte
		want int
	}{
		{"report", func() []byte { return []byte(render(t, longRun())) }, 11},
		{"compare", func() []byte {
			var b bytes.Buffer
			if err := RenderCompare(&b, []Run{{"in-process", longRun()}, {"REST", longRun()}}); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range chartDefects(t, tc.page(), tc.want) {
				t.Error(d)
			}
		})
	}
}
