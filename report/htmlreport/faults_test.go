package htmlreport

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/report"
)

// TestFaultsShadedAndTabled: a run with two fault windows shows them as named red bands on the
// throughput, latency and errors charts — drawn in Chromium, six bands — and in a table with
// each fault's errors, recovery and worst p99. Mutant: report-faults-unshaded (the bands not
// drawn) seen failing it.
func TestFaultsShadedAndTabled(t *testing.T) {
	r := sample(100)
	r.AddFaults([]report.Fault{
		{Name: "SIGKILL web1", Start: r.StartedAt.Add(10400 * time.Millisecond), End: r.StartedAt.Add(12 * time.Second)},
		{Name: "restart pg (immediate)", Start: r.StartedAt.Add(20 * time.Second), End: r.StartedAt.Add(22500 * time.Millisecond)},
	})
	var buf bytes.Buffer
	if err := Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	// the band covers the points holding the window: 11 (10–11 s) to 12 (11–12 s)
	if n := strings.Count(page, `"faults":[{"from":10.5,"to":12.5,"name":"SIGKILL web1"},{"from":20.5,"to":23.5,"name":"restart pg (immediate)"}]`); n != 3 {
		t.Errorf("fault bands on %d charts, want 3 (throughput, latency, errors)", n)
	}
	row := regexp.MustCompile(`<td>SIGKILL web1</td><td>10\.4–12\.0</td><td[^>]*>\d+</td><td[^>]*>(recovered in [\d.]+ s|not recovered|recovery not measured)[^<]*</td><td>[\d.]+</td>`)
	if !row.MatchString(page) {
		i := strings.Index(page, `id="faults"`)
		t.Errorf("no table row for web1's fault:\n%.1500s", page[max(i, 0):])
	}

	path := filepath.Join(t.TempDir(), "r.html")
	if err := WriteFile(path, func(w io.Writer) error { return Render(w, r) }); err != nil {
		t.Fatal(err)
	}
	dom := drawnCharts(t, path, 11) // TestReportDrawsEveryChartInChromium's eleven
	if m := regexp.MustCompile(`data-fault-bands="(\d+)"`).FindStringSubmatch(dom); m == nil || m[1] != "6" {
		t.Errorf("fault bands drawn: %v, want 6 (two faults on three charts)", m)
	}
}
