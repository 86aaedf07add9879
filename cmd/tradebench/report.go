package main

import (
	"context"
	"errors"
	"flag"
	"os"

	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/publish"
)

func init() {
	register(&command{name: "report", summary: "the HTML report of a results file, price/performance; 'report compare A.json B.json…' puts runs side by side", run: runReport})
}

var reportHelp = helpText("report.txt")

func runReport(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "compare" {
		return runCompare(ctx, args[1:])
	}
	fs := cliflag.NewFlagSet("tradebench report", "RESULTS.json [flags]")
	r := publish.Render{Log: os.Stderr}
	fs.StringVar(&r.Out, "out", "", "write the report here (default: beside the results, the same name with .html)")
	fs.StringVar(&r.PricingFile, "pricing", "", "price list of the system under test (YAML: currency, items of {name, cost}): adds price/performance")
	fs.StringVar(&r.Format, "format", "html", "html (the report), csv (per-second series and transaction table) or junit (thresholds and verdict as JUnit test cases, for CI)")
	cliflag.SetHelp(fs, reportHelp)
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return cliflag.Errorf("want one results file (got %d); to put runs side by side: tradebench report compare A.json B.json…", len(files))
	}
	r.File = files[0]
	return publishError(r.Run(ctx))
}

func runCompare(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench report compare", "A.json B.json… [flags]")
	c := publish.Compare{Log: os.Stderr}
	fs.StringVar(&c.Out, "out", "compare.html", "write the comparison here")
	fs.StringVar(&c.PricingFile, "pricing", "", "price every run with this price list (runs on the same system under test), replacing the prices the results have")
	fs.BoolVar(&c.Force, "force", false, "compare runs of different workloads or scenarios anyway")
	cliflag.SetHelp(fs, reportHelp)
	var err error
	if c.Files, err = parseWithFiles(fs, args); err != nil {
		return err
	}
	return publishError(c.Run(ctx))
}

// checkOutDir refuses, before any work, an output file whose directory does not exist.
func checkOutDir(path string) error {
	if err := report.CheckWritable(path); err != nil {
		return cliflag.Errorf("--out: %v", err)
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

// publishFlags are the flags of the commands that write results: the report beside them and
// their price (--out and --force are the pipeline's). They set a publish.Output, which checks
// the paths before the run and publishes the results once after it.
type publishFlags struct{ publish.Output }

func (p *publishFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&p.NoReport, "no-report", false, "do not write the HTML report beside the results file (--out X.json → X.html)")
	fs.StringVar(&p.PricingFile, "pricing", "", "price list of the system under test (YAML: currency, items of {name, cost}): the results get price/performance (cost per TPS)")
}

// check is Output.Check with the command line's streams and flag names.
func (p *publishFlags) check() error {
	p.Summary, p.Log = os.Stdout, os.Stderr
	return publishError(p.Check())
}

// write publishes the results (Output.Write); a refusal names the flag.
func (p *publishFlags) write(res *report.Results) error { return publishError(p.Write(res)) }

// publishNames names the flags that set report/publish's fields.
var publishNames = cliflag.Names{"Out": "out", "PricingFile": "pricing", "Format": "format"}

// publishError maps report/publish's errors to the command line: bad input is a usage error
// (exit 2) naming the flag; a file that could not be written passes as it is.
func publishError(err error) error {
	var ex *publish.ExistsError
	var nc *report.NotComparable
	var se *setting.Error
	switch {
	case errors.As(err, &ex):
		return cliflag.Errorf("--out: %s exists: results are not overwritten; remove it, choose another name, or give --force", ex.Path)
	case errors.As(err, &nc):
		return cliflag.Errorf("%v; --force compares them anyway", nc)
	case errors.As(err, &se) && (se.Field == "File" || se.Field == "Files"):
		return cliflag.Errorf("%v", se.Err) // the message names the file
	}
	return publishNames.OrUsage(err)
}

// addLabel registers --label, the run's name, on a load command.
func addLabel(fs *flag.FlagSet, label *string) {
	fs.StringVar(label, "label", "", "name of the run in the summary, the report and comparisons (default: the workload and its key settings, e.g. \"stocktrader 50 users\")")
}
