package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/logsafe"
	"github.com/tradebench/tradebench/internal/suggest"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/htmlreport"
	"github.com/tradebench/tradebench/report/pricing"
)

func init() {
	register(&command{name: "report", summary: "the HTML report of a results file, price/performance; 'report compare A.json B.json…' puts runs side by side", run: runReport})
}

var reportHelp = helpText("report.txt")

func runReport(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "compare" {
		return runCompare(args[1:])
	}
	fs := cliflag.NewFlagSet("tradebench report", "RESULTS.json [flags]")
	out := fs.String("out", "", "write the report here (default: beside the results, the same name with .html)")
	pricingFile := fs.String("pricing", "", "price list of the system under test (YAML: currency, items of {name, cost}): adds price/performance")
	format := fs.String("format", "html", "html (the report), csv (per-second series and transaction table) or junit (thresholds and verdict as JUnit test cases, for CI)")
	cliflag.SetHelp(fs, reportHelp)
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return cliflag.Errorf("want one results file (got %d); to put runs side by side: tradebench report compare A.json B.json…", len(files))
	}
	res, err := report.ReadFile(files[0])
	if err != nil {
		return cliflag.Errorf("%v", err)
	}
	if *pricingFile != "" {
		p, err := loadPricing(*pricingFile)
		if err != nil {
			return err
		}
		applyPricing(res, p)
	}
	switch *format {
	case "html":
	case "csv", "junit":
		return writeExport(res, files[0], *out, *format)
	default:
		return cliflag.Errorf("--format: %q is not html, csv or junit%s", *format, suggest.DidYouMean(*format, []string{"html", "csv", "junit"}))
	}
	path := *out
	if path == "" {
		path = htmlreport.PathFor(files[0])
	}
	if err := checkOutDir(path); err != nil {
		return err
	}
	if err := htmlreport.WriteFile(path, func(w io.Writer) error { return htmlreport.Render(w, res) }); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	fmt.Fprintf(os.Stderr, "report written to %s\n", path)
	return nil
}

func runCompare(args []string) error {
	fs := cliflag.NewFlagSet("tradebench report compare", "A.json B.json… [flags]")
	out := fs.String("out", "compare.html", "write the comparison here")
	pricingFile := fs.String("pricing", "", "price every run with this price list (runs on the same system under test), replacing the prices the results have")
	force := fs.Bool("force", false, "compare runs of different workloads or scenarios anyway")
	cliflag.SetHelp(fs, reportHelp)
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(files) < 2 {
		return cliflag.Errorf("want two or more results files to compare, got %d", len(files))
	}
	if err := checkOutDir(*out); err != nil {
		return err
	}
	var price *pricing.Pricing
	if *pricingFile != "" {
		if price, err = loadPricing(*pricingFile); err != nil {
			return err
		}
	}
	runs := make([]htmlreport.Run, len(files))
	for i, f := range files {
		res, err := report.ReadFile(f)
		if err != nil {
			return cliflag.Errorf("%v", err)
		}
		if price != nil {
			applyPricing(res, price)
		}
		runs[i] = htmlreport.Run{Label: runLabel(files, i, res), Results: res}
		// a results file is anyone's: what it says reaches the terminal escaped
		fmt.Fprintf(os.Stderr, "%s: %s\n", logsafe.Terminal(runs[i].Label), logsafe.Terminal(res.Validity.VerdictLine()))
		if i > 0 && !*force {
			if err := report.Comparable(runs[0].Results, res); err != nil {
				return cliflag.Errorf("%v; --force compares them anyway", err)
			}
		}
	}
	if err := htmlreport.WriteFile(*out, func(w io.Writer) error { return htmlreport.RenderCompare(w, runs) }); err != nil {
		return fmt.Errorf("write the comparison: %w", err)
	}
	fmt.Fprintf(os.Stderr, "comparison written to %s\n", *out)
	return nil
}

// runLabel names a run of a comparison by its --label, else by its file's base name, or by the
// path as given when two files share a base name (a/results.json, b/results.json).
func runLabel(files []string, i int, res *report.Results) string {
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

// writeExport writes --format csv (two files: the series and the transactions) or junit.
func writeExport(res *report.Results, resultsPath, out, format string) error {
	prefix := out
	if prefix == "" {
		prefix = strings.TrimSuffix(resultsPath, filepath.Ext(resultsPath))
	}
	type file struct {
		path  string
		write func(io.Writer) error
	}
	var files []file
	if format == "csv" {
		prefix = strings.TrimSuffix(prefix, ".csv")
		files = []file{{prefix + ".series.csv", res.WriteSeriesCSV}, {prefix + ".transactions.csv", res.WriteTransactionsCSV}}
	} else {
		path := prefix + ".junit.xml"
		if out != "" {
			path = out
		}
		files = []file{{path, res.WriteJUnit}}
	}
	for _, f := range files {
		if err := checkOutDir(f.path); err != nil {
			return err
		}
		if err := htmlreport.WriteFile(f.path, f.write); err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		fmt.Fprintf(os.Stderr, "%s written to %s\n", format, f.path)
	}
	return nil
}

// checkOutDir refuses, before any work, a report path whose directory does not exist.
func checkOutDir(path string) error {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return cliflag.Errorf("--out: %s: the directory %s does not exist", path, dir)
	}
	return nil
}

// parseWithFiles parses flags given before, between or after the file arguments (the standard
// flag package stops at the first argument), and returns the files.
func parseWithFiles(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := cliflag.Parse(fs, args, true); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return files, nil
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// publishFlags are the flags of the commands that write results (run, drive): the HTML report
// beside them and their price/performance.
type publishFlags struct {
	noReport    bool
	pricingFile string
	pricing     *pricing.Pricing
}

func (p *publishFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&p.noReport, "no-report", false, "do not write the HTML report beside the results file (--out X.json → X.html)")
	fs.StringVar(&p.pricingFile, "pricing", "", "price list of the system under test (YAML: currency, items of {name, cost}): the results get price/performance (cost per TPS)")
}

// load reads the price list before the run, so a mistake in it costs seconds, not a run.
func (p *publishFlags) load() error {
	if p.pricingFile == "" {
		return nil
	}
	var err error
	p.pricing, err = loadPricing(p.pricingFile)
	return err
}

// price adds price/performance to the results, when there is a price list.
func (p *publishFlags) price(res *report.Results) {
	if p != nil && p.pricing != nil {
		applyPricing(res, p.pricing)
	}
}

// writeReport writes the HTML report beside the results file, unless --no-report.
func (p *publishFlags) writeReport(res *report.Results, resultsPath string) error {
	if p == nil || p.noReport || resultsPath == "" {
		return nil
	}
	path := htmlreport.PathFor(resultsPath)
	if err := htmlreport.WriteFile(path, func(w io.Writer) error { return htmlreport.Render(w, res) }); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	fmt.Fprintf(os.Stderr, "report written to %s\n", path)
	return nil
}

// addLabel registers --label, the run's name, on a load command.
func addLabel(fs *flag.FlagSet, label *string) {
	fs.StringVar(label, "label", "", "name of the run in the summary, the report and comparisons (default: the workload and its key settings, e.g. \"stocktrader 50 users\")")
}

// loadPricing reads --pricing; any mistake in the file is a usage error naming the file and line.
func loadPricing(path string) (*pricing.Pricing, error) {
	p, err := pricing.Load(path)
	if err != nil {
		return nil, cliflag.Errorf("--pricing: %v", err)
	}
	return p, nil
}

// applyPricing fills the results' price/performance and says it; a run without throughput is
// not priced (there is nothing to divide by), which is said too.
func applyPricing(res *report.Results, p *pricing.Pricing) {
	pp, err := p.For(res)
	if err != nil {
		fmt.Fprintf(os.Stderr, "price/performance: not priced: %v\n", err)
		return
	}
	res.PricePerformance = pp
	fmt.Fprintf(os.Stderr, "price/performance: %s %s per TPS (%s %s over %.2f TPS, %s)\n", pp.PerTPS, pp.Currency, pp.Total, pp.Currency, pp.TPS, pp.TPSOf)
}
