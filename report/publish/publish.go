// Package publish is the one place results leave the kit. Every command that writes results
// (run, drive, wstest drive, xmlmark run, cacheperf sweep, run --versus, report) goes through
// it: an Output checks its paths and the one overwrite rule before any load, then — once, after
// the run — prices the results, prints their summary and writes the JSON, the HTML report beside
// it and the work directory's latest copy. Jobs only return results; they write nothing.
//
// It belongs to the instrument (report): it knows results, their report and their price list,
// and no system under test.
package publish

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/htmlreport"
	"github.com/tradebench/tradebench/report/pricing"
)

// LatestName is the work directory's copy of the latest run's results (Output.Dir); its report
// is beside it, results.html.
const LatestName = "results.json"

// Output is where one command's results go and what goes with them. Its fields are the
// settings; Check applies them before the run, Write publishes the results after it.
type Output struct {
	// Out is the results JSON file. With Out and Dir both "" no file is written (the summary
	// and the price only).
	Out string
	// Dir, when Out is "", keeps every run: each run's results go to a file of their own,
	// DIR/results-YYYYMMDD-HHMMSS.json (with its report), copied to DIR/results.json and
	// results.html, the latest. Dir is made if missing.
	Dir string
	// Force allows replacing an existing results file, and the report beside it. Without it an
	// existing one is refused by Check, before any load: results are never overwritten silently.
	Force bool
	// NoReport writes no HTML report beside the results.
	NoReport bool
	// PricingFile is the system under test's price list (YAML: currency, items of {name,
	// cost}); the results get price/performance. Read by Check, so a mistake in it costs
	// seconds, not a run.
	PricingFile string
	// Summary receives the results' summary table (nil: none). Log receives one line for each
	// file written and the price/performance (nil: none).
	Summary, Log io.Writer

	now     func() time.Time // the clock naming Dir's files (tests set it)
	checked bool
	written bool
	path    string // the results file Check chose
	latest  string // Dir's latest copy, or ""
	price   *pricing.Pricing
}

// ExistsError is the overwrite rule's refusal: the file at Path exists and Force was not given.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return e.Path + " exists: results are not overwritten; remove it, choose another name, or force the overwrite"
}

// ErrWritten is Write called a second time on one Output: results are written once.
var ErrWritten = errors.New("publish: the results were already written")

// Check reads the price list and checks where the results will go, before any load: a results
// file (or the report that would go beside it) that exists is refused unless Force; a file
// whose directory does not exist or takes no file is refused. Errors are *setting.Error naming
// the field (Out, PricingFile); the overwrite refusal wraps an *ExistsError. It writes nothing.
func (o *Output) Check() error {
	p, err := loadPricing(o.PricingFile)
	if err != nil {
		return err
	}
	o.price = p
	o.path, o.latest = o.Out, ""
	if o.Out == "" && o.Dir != "" {
		o.path, o.latest = o.dirName(), filepath.Join(o.Dir, LatestName)
		if _, err := os.Stat(o.Dir); err != nil {
			o.checked = true
			return nil // made by Write (a run makes its work directory anyway)
		}
	}
	if o.path == "" {
		o.checked = true
		return nil
	}
	if err := CheckOverwrite(o.Force, o.files()...); err != nil {
		return err
	}
	if err := report.CheckWritable(o.path); err != nil {
		return &setting.Error{Field: "Out", Err: err}
	}
	o.checked = true
	return nil
}

// dirName is a new results file in Dir, named for the time: a second run in the same second
// gets milliseconds in its name, so no run replaces another's.
func (o *Output) dirName() string {
	now := time.Now
	if o.now != nil {
		now = o.now
	}
	t := now().UTC()
	p := filepath.Join(o.Dir, "results-"+t.Format("20060102-150405")+".json")
	if _, err := os.Stat(p); err == nil {
		p = filepath.Join(o.Dir, "results-"+t.Format("20060102-150405.000")+".json")
	}
	return p
}

// files are the files the results go to under the overwrite rule: the JSON and, unless
// NoReport, its report.
func (o *Output) files() []string {
	if o.NoReport {
		return []string{o.path}
	}
	return []string{o.path, htmlreport.PathFor(o.path)}
}

// Results is the results file the Output writes ("" when none), known after Check.
func (o *Output) Results() string { return o.path }

// CheckOverwrite is the one overwrite rule of every file a command writes results to: an
// existing file is not replaced unless force. The refusal is a *setting.Error of Out wrapping
// an *ExistsError.
func CheckOverwrite(force bool, paths ...string) error {
	if force {
		return nil
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return &setting.Error{Field: "Out", Err: &ExistsError{Path: p}}
		}
	}
	return nil
}

// Write publishes res, once: it prices them (with a price list), prints their summary, writes
// the results JSON, the HTML report beside it (unless NoReport) and, with Dir, the latest copy
// of both. res nil writes nothing. Every file is written atomically (a temporary file renamed
// into place). A second Write returns ErrWritten and changes nothing. Without an earlier Check,
// Write checks first (the overwrite rule holds either way).
func (o *Output) Write(res *report.Results) error {
	if res == nil {
		return nil
	}
	if o.written {
		return ErrWritten
	}
	if !o.checked {
		if err := o.Check(); err != nil {
			return err
		}
	}
	o.written = true
	log := orDiscard(o.Log)
	Price(res, o.price, log)
	if o.Summary != nil {
		res.WriteSummary(o.Summary)
	}
	if o.path == "" {
		return nil
	}
	if o.Dir != "" {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return fmt.Errorf("write results: %w", err)
		}
	}
	if err := res.WriteFile(o.path); err != nil {
		return fmt.Errorf("write results %s: %w", o.path, err)
	}
	fmt.Fprintf(log, "results written to %s\n", o.path)
	if !o.NoReport {
		if err := writeReport(res, htmlreport.PathFor(o.path), log); err != nil {
			return err
		}
	}
	if o.latest == "" {
		return nil
	}
	copies := [][2]string{{o.path, o.latest}}
	if !o.NoReport {
		copies = append(copies, [2]string{htmlreport.PathFor(o.path), htmlreport.PathFor(o.latest)})
	}
	var errs []error
	for _, c := range copies {
		if err := copyFile(c[0], c[1]); err != nil {
			errs = append(errs, fmt.Errorf("the latest copy %s: %w", c[1], err))
		}
	}
	if len(errs) == 0 {
		fmt.Fprintf(log, "latest results: %s\n", o.latest)
	}
	return errors.Join(errs...)
}

// Price fills res's price/performance from p (nil: nothing) and says it on log; a run without
// throughput is not priced (there is nothing to divide by), which is said too.
func Price(res *report.Results, p *pricing.Pricing, log io.Writer) {
	if p == nil {
		return
	}
	pp, err := p.For(res)
	if err != nil {
		fmt.Fprintf(log, "price/performance: not priced: %v\n", err)
		return
	}
	res.PricePerformance = pp
	fmt.Fprintf(log, "price/performance: %s %s per TPS (%s %s over %.2f TPS, %s)\n", pp.PerTPS, pp.Currency, pp.Total, pp.Currency, pp.TPS, pp.TPSOf)
}

// writeReport writes the HTML report of res to path, atomically, and says so on log.
func writeReport(res *report.Results, path string, log io.Writer) error {
	if err := htmlreport.WriteFile(path, func(w io.Writer) error { return htmlreport.Render(w, res) }); err != nil {
		return fmt.Errorf("write the report %s: %w", path, err)
	}
	fmt.Fprintf(log, "report written to %s\n", path)
	return nil
}

// copyFile copies the file at from to to, atomically (a temporary file renamed into place), so
// a reader of the latest copy never sees half of it.
func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return htmlreport.WriteFile(to, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// To is an Output of o's settings (Force, NoReport, the price list, the streams) writing to
// out: one command's several results files (run --versus: each side's). It is checked and
// written on its own.
func (o *Output) To(out string) *Output {
	return &Output{Out: out, Force: o.Force, NoReport: o.NoReport, PricingFile: o.PricingFile, Summary: o.Summary, Log: o.Log, now: o.now}
}
