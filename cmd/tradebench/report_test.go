package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/testing/headless"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/htmlreport"
)

const testPricing = `currency: EUR
items:
  - name: server
    cost: 1000.10
  - name: support
    cost: 0.2
`

// shortRun is a real `tradebench run` of a few seconds on a small embedded data set.
func shortRun(t *testing.T, dir, out string, extra ...string) result {
	t.Helper()
	args := append([]string{"run", "--work-dir", filepath.Join(dir, "work"), "--accounts", "200", "--quotes", "50",
		"--users", "3", "--ramp-up", "1s", "-d", "3s", "--ramp-down", "1s", "--think", "0", "--progress", "off", "--out", out}, extra...)
	return mustRun(t, args...)
}

// checkDrawn opens a page in headless Chromium and fails unless every chart it lays out was
// drawn without a script error; at least min charts.
func checkDrawn(t *testing.T, page string, min int) {
	t.Helper()
	bin := headless.Require(t)
	dom, err := headless.DumpDOM(context.Background(), bin, page)
	if err != nil {
		t.Fatal(err)
	}
	d := htmlreport.Inspect(dom)
	if !d.OK() || d.Places < min {
		t.Errorf("%s: %d charts laid out, %d canvases, %d reported drawn, errors %q; want every one of at least %d drawn", page, d.Places, d.Canvases, d.Reported, d.Errors, min)
	}
}

// The report of a real run: run writes results, prices them and writes the report beside them;
// the report opens in Chromium with every chart drawn; a second run and a comparison of the two
// do too.
func TestRunReportAndCompare(t *testing.T) {
	t.Parallel() // it mostly waits (runs of fixed length, a browser, servers starting): alongside the other long ones (docs/guide.md, "The CI budget")
	dir := t.TempDir()
	price := filepath.Join(dir, "pricing.yaml")
	if err := os.WriteFile(price, []byte(testPricing), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	r := shortRun(t, dir, a, "--pricing", price)
	if !strings.Contains(r.stderr, "report written to "+filepath.Join(dir, "a.html")) {
		t.Errorf("run did not say where the report is:\n%s", r.stderr)
	}
	res, err := report.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	pp := res.PricePerformance
	if pp == nil || pp.Currency != "EUR" || pp.Total != "1000.30" || pp.TPS != res.Total.TPS || pp.TPSOf != report.PriceOfSteady || len(pp.Items) != 2 {
		t.Fatalf("price/performance in the results: %+v (TPS %g)", pp, res.Total.TPS)
	}
	page, err := os.ReadFile(filepath.Join(dir, "a.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), pp.PerTPS+" EUR per TPS") {
		t.Errorf("the report does not show %s EUR per TPS", pp.PerTPS)
	}
	// throughput, latency, load and errors at least; SUT charts when the run records them
	checkDrawn(t, filepath.Join(dir, "a.html"), 4)

	shortRun(t, dir, b, "--users", "2", "--no-report")
	if _, err := os.Stat(filepath.Join(dir, "b.html")); !os.IsNotExist(err) {
		t.Errorf("--no-report wrote a report: %v", err)
	}
	// the report command makes it afterwards, beside the results, and priced
	r = mustRun(t, "report", b, "--pricing", price)
	if _, err := os.Stat(filepath.Join(dir, "b.html")); err != nil {
		t.Fatalf("report did not write b.html: %v\n%s", err, r.stderr)
	}
	cmp := filepath.Join(dir, "cmp.html")
	mustRun(t, "report", "compare", a, b, "--out", cmp)
	page, err = os.ReadFile(cmp)
	if err != nil {
		t.Fatal(err)
	}
	// the user count is what changed between the runs
	if !strings.Contains(string(page), "settings.users") || !strings.Contains(string(page), `<td class="changed">2</td>`) {
		t.Error("the comparison does not highlight the changed user count")
	}
	// TPS and latency per run, TPS and p90 per transaction, $/TPS, throughput over time
	checkDrawn(t, cmp, 6)
	if strings.Contains(string(page), "Price list of b") {
		t.Error("the unpriced run b has a price list")
	}
	// --pricing prices every run of a comparison
	mustRun(t, "report", "compare", a, b, "--pricing", price, "--out", cmp)
	if page, _ = os.ReadFile(cmp); !strings.Contains(string(page), "Price list of b") {
		t.Error("compare --pricing did not price run b")
	}
}

// drive --out X.json writes X.html beside it, unless --no-report; a bad pricing file stops it
// before any load.
func TestDriveWritesReport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "x.json")
	quick := []string{"drive", "--url", srv.URL + "/", "-c", "2", "-d", "1s", "--progress", "off", "--out", out}
	if code := runMain(quick); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.html")); err != nil {
		t.Fatalf("drive --out x.json wrote no x.html: %v", err)
	}
	out2 := filepath.Join(dir, "y.json")
	if code := runMain(append(quick[:len(quick)-1], out2, "--no-report")); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "y.html")); !os.IsNotExist(err) {
		t.Errorf("--no-report wrote y.html: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("currency: USD\nitems:\n  - name: server\n    cost: -3\n"), 0o644)
	r := tb(t, append(quick[:len(quick)-1], filepath.Join(dir, "z.json"), "--pricing", bad)...)
	if r.code != 2 || !strings.Contains(r.stderr, "--pricing: "+bad+":4: cost of \"server\": -3 is negative") {
		t.Errorf("bad pricing: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "z.json")); !os.IsNotExist(err) {
		t.Error("the run went ahead with a bad pricing file")
	}
}

// Bad results files are refused with exit 2 and a message naming the file and what is wrong,
// and leave no report (not even a partial one) behind.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	good := report.New("http")
	goodPath := filepath.Join(dir, "good.json")
	if err := good.WriteFile(goodPath); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(goodPath)
	files := map[string]string{
		"notjson.json": "this is not json",
		"half.json":    string(whole[:len(whole)/2]),
		"future.json":  strings.Replace(string(whole), fmt.Sprintf(`"schema_version": %d`, report.SchemaVersion), `"schema_version": 99`, 1),
		"blank.json":   "",
		"other.json":   `{"hello": "world"}`,
		"array.json":   `[1, 2]`,
	}
	want := map[string]string{
		"notjson.json": "not JSON",
		"half.json":    "truncated",
		"future.json":  "unknown schema version 99",
		"blank.json":   "empty",
		"other.json":   "no schema_version",
		"array.json":   "not a tradebench results file",
		"missing.json": "no such file",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, msg := range want {
		path := filepath.Join(dir, name)
		for _, args := range [][]string{{"report", path}, {"report", "compare", goodPath, path, "--out", filepath.Join(dir, "c.html")}} {
			r := tb(t, args...)
			if r.code != 2 || !strings.Contains(r.stderr, path+": ") || !strings.Contains(r.stderr, msg) {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q naming the file", args, r.code, r.stderr, msg)
			}
		}
	}
	badPricing := filepath.Join(dir, "p.yaml")
	os.WriteFile(badPricing, []byte("currency: USD\nitems: []\n"), 0o644)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"report", goodPath, "--pricing", badPricing}, badPricing + ":2: no items"},
		{[]string{"report"}, "want one results file"},
		{[]string{"report", goodPath, goodPath}, "want one results file"},
		{[]string{"report", "compare", goodPath}, "two or more"},
		{[]string{"report", goodPath, "--bogus"}, "bogus"},
		{[]string{"report", goodPath, "--out", filepath.Join(dir, "nowhere", "r.html")}, "--out: "},
		{[]string{"report", "compare", goodPath, goodPath, "--out", filepath.Join(dir, "nowhere", "c.html")}, "does not exist"},
	} {
		if r := tb(t, c.args...); r.code != 2 || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.msg)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".html") || strings.HasPrefix(e.Name(), ".") {
			t.Errorf("a refused report left %s behind", e.Name())
		}
	}
	// the good file makes a report, flags after the file work
	if r := tb(t, "report", goodPath, "--out", filepath.Join(dir, "ok.html")); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}
