package publish

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
)

// run reads a results file of the report package's test data: a real run's results, with
// throughput to price.
func run(t *testing.T, name string) *report.Results {
	t.Helper()
	res, err := report.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// priceList writes a price list of 1,000.00 USD and returns its path.
func priceList(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pricing.yaml")
	if err := os.WriteFile(p, []byte("currency: USD\nitems:\n  - name: server\n    cost: 1000.00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The one overwrite rule: an existing results file — or the report that would go beside it —
// is refused by Check (before any load), naming the file, and left as it was; without the
// report (NoReport) an existing report alone is no obstacle; Force replaces both.
// Mutants: publish-overwrite-unforced (CheckOverwrite's force test always true) and
// publish-overwrite-report-unchecked (the report left out of the rule) fail this test.
func TestOverwriteRule(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	html := filepath.Join(dir, "r.html")
	os.WriteFile(out, []byte("old results"), 0o644)
	os.WriteFile(html, []byte("old report"), 0o644)

	o := &Output{Out: out}
	err := o.Check()
	var ex *ExistsError
	var se *setting.Error
	if !errors.As(err, &ex) || ex.Path != out || !errors.As(err, &se) || se.Field != "Out" {
		t.Fatalf("an existing results file: %v, want an ExistsError of %s in a setting.Error of Out", err, out)
	}
	// Write checks too: a command that forgot Check cannot overwrite either
	if err := (&Output{Out: out}).Write(run(t, "v1-drive.json")); !errors.As(err, &ex) {
		t.Errorf("Write without Check over existing results: %v", err)
	}
	os.Remove(out)
	if err := (&Output{Out: out}).Check(); !errors.As(err, &ex) || ex.Path != html {
		t.Errorf("an existing report alone: %v, want it refused", err)
	}
	if err := (&Output{Out: out, NoReport: true}).Check(); err != nil {
		t.Errorf("NoReport with only the report there: %v", err)
	}
	if read(t, html) != "old report" {
		t.Error("a refused Check changed the report")
	}
	os.WriteFile(out, []byte("old results"), 0o644)
	f := &Output{Out: out, Force: true}
	if err := f.Check(); err != nil {
		t.Fatalf("Force: %v", err)
	}
	if err := f.Write(run(t, "v1-drive.json")); err != nil {
		t.Fatal(err)
	}
	if read(t, out) == "old results" || read(t, html) == "old report" {
		t.Error("Force did not replace the results and their report")
	}
	if _, err := report.ReadFile(out); err != nil {
		t.Errorf("the results written: %v", err)
	}
}

// Write publishes once, and in order: the price goes into the results before they are written
// (one write, priced: no second write after pricing), the summary is printed, and a second Write
// is refused and changes nothing. Mutants: publish-write-twice (the once guard gone: the second
// Write replaces the file) and publish-price-after-write (the JSON written before pricing, as
// the job did before `run` rewrote it) fail this test.
func TestWriteOnce(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var summary, log bytes.Buffer
	o := &Output{Out: out, PricingFile: priceList(t), Summary: &summary, Log: &log}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	res := run(t, "v1-drive.json")
	if err := o.Write(res); err != nil {
		t.Fatal(err)
	}
	got, err := report.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if pp := got.PricePerformance; pp == nil || pp.Currency != "USD" || pp.Total != "1000.00" {
		t.Errorf("the results written are not priced: %+v", pp)
	}
	if !strings.Contains(summary.String(), "transaction") {
		t.Errorf("no summary:\n%s", summary.String())
	}
	for _, line := range []string{"price/performance: ", "results written to " + out + "\n", "report written to " + filepath.Join(dir, "r.html") + "\n"} {
		if strings.Count(log.String(), line) != 1 {
			t.Errorf("the log says %q %d times, want once:\n%s", line, strings.Count(log.String(), line), log.String())
		}
	}
	first := read(t, out)
	res.Label = "changed after the write"
	if err := o.Write(res); !errors.Is(err, ErrWritten) {
		t.Errorf("a second Write: %v, want ErrWritten", err)
	}
	if read(t, out) != first {
		t.Error("a second Write changed the results file")
	}
}

// Dir keeps every run: two runs in the same second get files of their own, and results.json /
// results.html are copies of the latest run's; the directory is made by Write when missing
// (a run makes its work directory anyway). Mutant: publish-dir-same-name (the second run in a
// second takes the first's name) fails this test.
func TestDirKeepsEveryRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work")
	clock := func() time.Time { return time.Date(2026, 11, 27, 4, 30, 0, 0, time.UTC) }
	var written []string
	for i, label := range []string{"first", "second"} {
		o := &Output{Dir: dir, now: clock}
		if err := o.Check(); err != nil {
			t.Fatal(err)
		}
		res := run(t, "v1-drive.json")
		res.Label = label
		if err := o.Write(res); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		written = append(written, o.Results())
	}
	if written[0] == written[1] || !strings.HasPrefix(filepath.Base(written[0]), "results-20261127-043000") {
		t.Fatalf("the runs' files: %q", written)
	}
	for _, p := range written {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a run's results are gone: %v", err)
		}
	}
	if read(t, filepath.Join(dir, LatestName)) != read(t, written[1]) {
		t.Error("results.json is not the latest run's")
	}
	if read(t, filepath.Join(dir, "results.html")) != read(t, strings.TrimSuffix(written[1], ".json")+".html") {
		t.Error("results.html is not the latest run's report")
	}
}

// Check refuses before anything is written: a results file in a directory that does not
// exist, a directory given as the file, and a price list with a mistake (naming file and line).
func TestCheckRefusesBadOutput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("currency: USD\nitems:\n  - name: server\n    cost: -3\n"), 0o644)
	for _, c := range []struct {
		o     Output
		field string
		want  string
	}{
		{Output{Out: filepath.Join(dir, "nowhere", "r.json")}, "Out", "does not exist"},
		{Output{Out: dir}, "Out", "is a directory"},
		{Output{Out: filepath.Join(dir, "r.json"), PricingFile: bad}, "PricingFile", bad + ":4:"},
	} {
		err := c.o.Check()
		var se *setting.Error
		if !errors.As(err, &se) || se.Field != c.field || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a setting.Error of %s saying %q", c.o, err, c.field, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a refused Check left files: %v", entries)
	}
}

// An Output with no file prices and prints the summary, and writes nothing.
func TestNoFile(t *testing.T) {
	var summary bytes.Buffer
	o := &Output{Summary: &summary}
	if err := o.Write(run(t, "v1-drive.json")); err != nil || summary.Len() == 0 || o.Results() != "" {
		t.Errorf("no file: %v, summary %d bytes, results %q", err, summary.Len(), o.Results())
	}
}

// Compare refuses runs of different workloads unless Force (a setting.Error of Force wrapping
// report.NotComparable), before the page is written; with Force it writes the page. Render
// refuses an unknown format naming the field, and exports csv as two files beside the results.
// Mutant: publish-compare-any (the Comparable check skipped) fails this test.
func TestCompareAndRender(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join("..", "testdata", "v1-run.json"), filepath.Join("..", "testdata", "v1-sweep.json")
	page := filepath.Join(dir, "c.html")
	err := Compare{Files: []string{a, b}, Out: page}.Run(context.Background())
	var nc *report.NotComparable
	var se *setting.Error
	if !errors.As(err, &nc) || !errors.As(err, &se) || se.Field != "Force" {
		t.Errorf("a run and a sweep compared: %v", err)
	}
	if _, err := os.Stat(page); err == nil {
		t.Error("a refused comparison wrote its page")
	}
	if err := (Compare{Files: []string{a, b}, Out: page, Force: true}).Run(context.Background()); err != nil {
		t.Errorf("Force: %v", err)
	}
	if !strings.Contains(read(t, page), "<html") {
		t.Error("no comparison page")
	}
	if err := (Render{File: a, Format: "pfd"}).Run(context.Background()); !errors.As(err, &se) || se.Field != "Format" {
		t.Errorf("format pfd: %v", err)
	}
	var log bytes.Buffer
	if err := (Render{File: a, Out: filepath.Join(dir, "x"), Format: "csv", Log: &log}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"x.series.csv", "x.transactions.csv"} {
		if !strings.Contains(log.String(), "csv written to "+filepath.Join(dir, f)) || read(t, filepath.Join(dir, f)) == "" {
			t.Errorf("%s not written:\n%s", f, log.String())
		}
	}
}

// To keeps the command's settings for each side of run --versus: with Force, the other side's
// existing results file and report are replaced, not refused. Mutant: publish-to-drops-force.
func TestToKeepsSettings(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, p := range []string{a, b, filepath.Join(dir, "b.html")} {
		os.WriteFile(p, []byte("old"), 0o644)
	}
	o := (&Output{Out: a, Force: true}).To(b)
	if err := o.Check(); err != nil {
		t.Fatalf("To(%s) of a Force output refused the existing file: %v (Force lost)", b, err)
	}
	if err := o.Write(run(t, "v1-drive.json")); err != nil {
		t.Fatal(err)
	}
	if read(t, b) == "old" {
		t.Error("Force: the other side's results file not replaced")
	}
	if err := (&Output{Out: a}).To(b).Check(); err == nil {
		t.Error("To of an output without Force replaced an existing file")
	}
}

// `report compare` of capacity searches prints, on its log (the terminal), a capacity row per
// run against the first, from the capacities' intervals: the same build run twice (2,876 ± 47
// and 3,131 ± 144 by their confirming runs, docs/benchmarks.md) is "~", the same scenario over
// REST (2,056) a significant change.
// Mutant (scripts/mutants.d/publish-compare-no-capacity): the capacity rows not printed.
func TestCompareTerminalCapacityRow(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, tps, half float64) string {
		res := run(t, "v1-run.json")
		res.Label = name
		res.Peak = &report.PeakSearch{PeakTPS: tps, PeakUsers: 3000, PeakTPSHalf: half, Knee: true,
			Interval: report.NewCapacityInterval(tps, half, tps, tps, 0, 0)}
		p := filepath.Join(dir, name+".json")
		if err := res.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b, rest := file("first", 2876, 47), file("second", 3131, 144), file("rest", 2056, 40)
	var log bytes.Buffer
	if err := (Compare{Files: []string{a, b, rest}, Out: filepath.Join(dir, "c.html"), Log: &log}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := log.String()
	for _, want := range []string{"capacity: first 2876 ± 642 tps → second 3131 ± 724 tps: +8.9 % ~ (p=", "capacity: first 2876 ± 642 tps → rest 2056 ± 460 tps: -28.5 % (p=0.004"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}
