package publish

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tradebench/tradebench/internal/logsafe"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/internal/suggest"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/htmlreport"
	"github.com/tradebench/tradebench/report/pricing"
)

// The pages and exports made from results already written (`tradebench report`, `report
// compare`): they are made from the results, so they replace a page of the same name — the
// overwrite rule protects results, which cost a run, not what can be made again from them. The
// results files themselves are only read.

// Formats are what Render writes: the HTML report, or an export.
var Formats = []string{"html", "csv", "junit"}

// Render is `tradebench report`: the HTML report of one results file, or an export of it
// (Format csv: the per-second series and the transaction table; junit: the thresholds and the
// verdict as test cases, for CI).
type Render struct {
	// File is the results file read.
	File string
	// Out is the file written ("" = beside File: X.json → X.html, X.series.csv and
	// X.transactions.csv, X.junit.xml). For csv it is the prefix of the two files.
	Out string
	// PricingFile prices the run in its report (the results file is left as it was).
	PricingFile string
	// Format is one of Formats ("" = html).
	Format string
	// Log receives one line for each file written (nil: none).
	Log io.Writer
}

// Run makes the report or export. Bad input (Format, File, PricingFile, an Out whose directory
// does not exist) is a *setting.Error naming the field, returned before anything is written.
func (r Render) Run(ctx context.Context) error {
	log := orDiscard(r.Log)
	format := r.Format
	if format == "" {
		format = "html"
	}
	if !slices.Contains(Formats, format) {
		return setting.Errorf("Format", "%q is not %s%s", format, strings.Join(Formats, ", "), suggest.DidYouMean(format, Formats))
	}
	var res *report.Results
	err := interruptible(ctx, func() (err error) { res, err = readResults("File", r.File); return err })
	if err != nil {
		return err
	}
	p, err := loadPricing(r.PricingFile)
	if err != nil {
		return err
	}
	Price(res, p, log)
	type file struct {
		path  string
		write func(io.Writer) error
	}
	var files []file
	prefix := r.Out
	if prefix == "" {
		prefix = strings.TrimSuffix(r.File, filepath.Ext(r.File))
	}
	switch format {
	case "html":
		path := r.Out
		if path == "" {
			path = htmlreport.PathFor(r.File)
		}
		files = []file{{path, func(w io.Writer) error { return htmlreport.Render(w, res) }}}
	case "csv":
		prefix = strings.TrimSuffix(prefix, ".csv")
		files = []file{{prefix + ".series.csv", res.WriteSeriesCSV}, {prefix + ".transactions.csv", res.WriteTransactionsCSV}}
	case "junit":
		path := prefix + ".junit.xml"
		if r.Out != "" {
			path = r.Out
		}
		files = []file{{path, res.WriteJUnit}}
	}
	for _, f := range files {
		if err := checkDir(f.path); err != nil {
			return err
		}
	}
	what := format
	if format == "html" {
		what = "report"
	}
	for _, f := range files {
		if err := writeFile(ctx, f.path, f.write); err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		fmt.Fprintf(log, "%s written to %s\n", what, f.path)
	}
	return nil
}

// Compare is `tradebench report compare`: two or more runs side by side on one page.
type Compare struct {
	// Files are the results files, the first the base the others are compared with.
	Files []string
	// Out is the page written.
	Out string
	// PricingFile prices every run with one price list (runs of one system under test),
	// replacing the prices the results have.
	PricingFile string
	// Force compares runs of different workloads or scenarios, refused otherwise.
	Force bool
	// Log receives each run's name and verdict (escaped: a results file is anyone's) and the
	// line saying where the page is (nil: none).
	Log io.Writer
}

// Run writes the comparison. Bad input is a *setting.Error naming the field, returned before
// the page is written: Files (fewer than two, or one unreadable), PricingFile, Out (its
// directory does not exist), Force (runs that do not compare: wraps *report.NotComparable).
func (c Compare) Run(ctx context.Context) error {
	log := orDiscard(c.Log)
	if len(c.Files) < 2 {
		return setting.Errorf("Files", "want two or more results files to compare, got %d", len(c.Files))
	}
	if err := checkDir(c.Out); err != nil {
		return err
	}
	p, err := loadPricing(c.PricingFile)
	if err != nil {
		return err
	}
	runs := make([]htmlreport.Run, len(c.Files))
	for i, f := range c.Files {
		var res *report.Results
		if err := interruptible(ctx, func() (err error) { res, err = readResults("Files", f); return err }); err != nil {
			return err
		}
		Price(res, p, log)
		runs[i] = htmlreport.Run{Label: label(c.Files, i, res), Results: res}
		fmt.Fprintf(log, "%s: %s\n", logsafe.Terminal(runs[i].Label), logsafe.Terminal(res.Validity.VerdictLine()))
		if i > 0 && !c.Force {
			if err := report.Comparable(runs[0].Results, res); err != nil {
				return &setting.Error{Field: "Force", Err: err}
			}
		}
	}
	writeCapacities(log, runs)
	return writeCompare(ctx, c.Out, runs, log)
}

// writeCapacities prints, for runs that searched for their capacity, each one's capacity
// against the first's: its interval and whether the change is significant ("~" when not).
func writeCapacities(log io.Writer, runs []htmlreport.Run) {
	base, ok := report.CapacityOf(runs[0].Results)
	if !ok {
		return
	}
	for _, r := range runs[1:] {
		change, _, ok := report.CapacityChange(runs[0].Results, r.Results)
		if !ok {
			continue
		}
		c, _ := report.CapacityOf(r.Results)
		fmt.Fprintf(log, "capacity: %s %s tps → %s %s tps: %s\n", logsafe.Terminal(runs[0].Label), base.Label(), logsafe.Terminal(r.Label),
			c.Label(), change)
	}
}

// WriteCompare writes the comparison page of runs to path, atomically, and says so on log.
func WriteCompare(path string, runs []htmlreport.Run, log io.Writer) error {
	return writeCompare(context.Background(), path, runs, log)
}

func writeCompare(ctx context.Context, path string, runs []htmlreport.Run, log io.Writer) error {
	if err := writeFile(ctx, path, func(w io.Writer) error { return htmlreport.RenderCompare(w, runs) }); err != nil {
		return fmt.Errorf("write the comparison %s: %w", path, err)
	}
	fmt.Fprintf(orDiscard(log), "comparison written to %s\n", path)
	return nil
}

// label names run i of a comparison by its label, else by its file's base name, or by the path
// as given when two files share a base name (a/results.json, b/results.json).
func label(files []string, i int, res *report.Results) string {
	if res.Label != "" {
		return res.Label
	}
	base := func(f string) string { return strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)) }
	for j, f := range files {
		if j != i && base(f) == base(files[i]) {
			return files[i]
		}
	}
	return base(files[i])
}

// readResults reads a results file; a file that cannot be read or is not results is bad input
// (a *setting.Error of field, its message naming the file).
func readResults(field, path string) (*report.Results, error) {
	res, err := report.ReadFile(path)
	if err != nil {
		return nil, &setting.Error{Field: field, Err: err}
	}
	return res, nil
}

// loadPricing reads a price list ("" = none); a mistake in it is a *setting.Error of
// PricingFile naming the file and line.
func loadPricing(path string) (*pricing.Pricing, error) {
	if path == "" {
		return nil, nil
	}
	p, err := pricing.Load(path)
	if err != nil {
		return nil, &setting.Error{Field: "PricingFile", Err: err}
	}
	return p, nil
}

// checkDir refuses, before any work, a page whose directory does not exist or takes no file.
func checkDir(path string) error {
	if err := report.CheckWritable(path); err != nil {
		return &setting.Error{Field: "Out", Err: err}
	}
	return nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// interruptible runs fn and returns its error, or ctx's as soon as ctx ends (SIGTERM): reading
// and drawing a file near the size cap takes seconds, and the command must stop at once. fn
// goes on until the process exits; it only reads and renders into memory, so nothing is left
// half-written.
func interruptible(ctx context.Context, fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("interrupted, nothing written: %w", ctx.Err())
	}
}

// writeFile renders a page or an export into memory, interruptibly, then writes it to path
// atomically (htmlreport.WriteFile): an interrupted render leaves no file, not even a
// temporary one.
func writeFile(ctx context.Context, path string, render func(io.Writer) error) error {
	var page bytes.Buffer
	if err := interruptible(ctx, func() error { return render(&page) }); err != nil {
		return err
	}
	return htmlreport.WriteFile(path, func(w io.Writer) error { _, err := w.Write(page.Bytes()); return err })
}
