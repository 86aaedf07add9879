package report

import (
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/logsafe"
)

// WriteSeriesCSV writes the per-second series as CSV, one row a second, with a header: for a
// spreadsheet or a plotting tool. Times are seconds from the start and the clock time (RFC 3339).
func (r *Results) WriteSeriesCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"second", "time", "phase", "tps", "errors", "hits", "p50_ms", "p90_ms", "p99_ms", "users"})
	for _, p := range r.Series {
		t := ""
		if !r.StartedAt.IsZero() {
			t = r.StartedAt.Add(secondsDuration(p.Second)).UTC().Format("2006-01-02T15:04:05Z07:00")
		}
		_ = cw.Write([]string{strconv.Itoa(p.Second), t, logsafe.CSVCell(p.Phase), num(p.TPS), strconv.FormatInt(p.Errors, 10),
			strconv.FormatInt(p.Hits, 10), num(p.P50Ms), num(p.P90Ms), num(p.P99Ms), strconv.Itoa(p.Users)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteTransactionsCSV writes the transaction table (each transaction, then the total) as CSV.
func (r *Results) WriteTransactionsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"transaction", "count", "pass", "fail", "stop", "tps", "min_ms", "mean_ms", "std_ms", "p50_ms", "p90_ms",
		"p95_ms", "p99_ms", "p999_ms", "max_ms"})
	row := func(name string, t Transaction) {
		_ = cw.Write([]string{logsafe.CSVCell(name), i64(t.Count), i64(t.Pass), i64(t.Errors), i64(t.Stop), num(t.TPS), num(t.MinMs),
			num(t.MeanMs), num(t.StdMs), num(t.P50Ms), num(t.P90Ms), num(t.P95Ms), num(t.P99Ms), num(t.P999Ms), num(t.MaxMs)})
	}
	for _, t := range r.Transactions {
		row(t.Name, t)
	}
	row("(total)", r.Total)
	cw.Flush()
	return cw.Error()
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
func i64(n int64) string   { return strconv.FormatInt(n, 10) }

// JUnit XML, the shape CI servers read (Jenkins, GitLab, GitHub actions): testsuites of
// testsuite of testcase, a failure element in a failed case.
type (
	JUnitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Suites   []JUnitSuite `xml:"testsuite"`
	}
	JUnitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr,omitempty"`
		Cases     []JUnitCase `xml:"testcase"`
	}
	JUnitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *JUnitFailure `xml:"failure,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	JUnitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// JUnit is the run's pass/fail criteria as JUnit test cases, for CI: one case per threshold,
// one for the audit, and the verdict (every criterion passed) last.
func (r *Results) JUnit() JUnitSuites {
	suite := JUnitSuite{Name: "tradebench " + r.Name(), Time: num(r.SteadySeconds)}
	if !r.StartedAt.IsZero() {
		suite.Timestamp = r.StartedAt.UTC().Format("2006-01-02T15:04:05")
	}
	class := "tradebench." + r.Workload
	ok := true
	for _, t := range r.Thresholds {
		c := JUnitCase{Name: "threshold " + t.Name, Classname: class, Time: "0",
			SystemOut: fmt.Sprintf("%s: %g (limit %g)", t.Name, t.Actual, t.Limit)}
		if !t.Passed {
			ok = false
			c.Failure = &JUnitFailure{Message: fmt.Sprintf("%s is %g, beyond its limit %g", t.Name, t.Actual, t.Limit), Type: "threshold",
				Text: c.SystemOut}
		}
		suite.Cases = append(suite.Cases, c)
	}
	if a := r.Audit; a != nil {
		c := JUnitCase{Name: "audit", Classname: class, Time: num(a.Seconds), SystemOut: fmt.Sprintf("%d checks", a.Checks)}
		if !a.Passed {
			ok = false
			n := max(a.ViolationCount, int64(len(a.Violations)))
			c.Failure = &JUnitFailure{Message: fmt.Sprintf("the audit found %d violations", n), Type: "audit", Text: joinLines(a.Violations)}
		}
		suite.Cases = append(suite.Cases, c)
	}
	v := JUnitCase{Name: "verdict", Classname: class, Time: num(r.SteadySeconds),
		SystemOut: fmt.Sprintf("%.1f TPS, p90 %s ms, p99 %s ms, error rate %.4f%%", r.Total.TPS, FormatMs(r.Total.P90Ms),
			FormatMs(r.Total.P99Ms), 100*r.ErrorRate())}
	if !ok {
		v.Failure = &JUnitFailure{Message: "the run failed a pass/fail criterion (see the cases above)", Type: "verdict"}
	}
	suite.Cases = append(suite.Cases, v)
	for _, c := range suite.Cases {
		suite.Tests++
		if c.Failure != nil {
			suite.Failures++
		}
	}
	return JUnitSuites{Name: "tradebench", Tests: suite.Tests, Failures: suite.Failures, Suites: []JUnitSuite{suite}}
}

// WriteJUnit writes JUnit() as an XML document.
func (r *Results) WriteJUnit(w io.Writer) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(r.JUnit()); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func joinLines(ls []string) string { return strings.Join(ls, "\n") }

func secondsDuration(s int) time.Duration { return time.Duration(s) * time.Second }
