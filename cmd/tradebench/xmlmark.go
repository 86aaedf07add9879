package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tradebench/tradebench/bench/xmlmarkjob"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/xmlmark"
)

func init() {
	register(&command{name: "xmlmark", summary: "XML Mark: the XML document lifecycle benchmark (gen, run, configs)", run: runXMLMark})
}

var xmlmarkUsage = helpText("xmlmark.txt")

func runXMLMark(ctx context.Context, args []string) error {
	return cliflag.RunSubcommand(ctx, args, xmlmarkUsage,
		cliflag.Subcommand{Name: "gen", Run: func(_ context.Context, args []string) error { return xmlmarkGen(args) }},
		cliflag.Subcommand{Name: "run", Run: xmlmarkRun},
		cliflag.Subcommand{Name: "configs", Run: func(_ context.Context, args []string) error { return xmlmarkConfigs(args) }})
}

func xmlmarkGen(args []string) error {
	fs := cliflag.NewFlagSet("tradebench xmlmark gen", "[--lines N] [--out FILE] [--xsd FILE]")
	cliflag.SetHelp(fs, helpText("xmlmark-gen.txt"))
	lines := fs.Int("lines", xmlmark.DOMLines, "line items in the invoice (the XML Mark paper uses 100 ≈ 90 KB for DOM, 1000 ≈ 900 KB for streaming)")
	out := fs.String("out", "-", "write the document to FILE (- = standard output)")
	xsd := fs.String("xsd", "", "also write the invoice schema (XSD) to FILE")
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	for _, f := range []string{*out, *xsd} {
		if f != "" && f != "-" {
			if err := checkOutDir(f); err != nil {
				return err
			}
		}
	}
	data, err := xmlmark.Generate(*lines) // at least 1 line item, at most the generator's bound
	if err != nil {
		return cliflag.Errorf("--lines: %v", err)
	}
	if *out == "-" || *out == "" {
		_, err = os.Stdout.Write(data)
	} else {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err == nil && *xsd != "" {
		err = os.WriteFile(*xsd, []byte(xmlmark.XSD), 0o644)
	}
	return err
}

func xmlmarkConfigs(args []string) error {
	fs := cliflag.NewFlagSet("tradebench xmlmark configs", "[NAME]")
	if err := cliflag.Parse(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		text, err := xmlmarkjob.ConfigText(fs.Arg(0))
		if err != nil {
			return cliflag.Errorf("%v", err)
		}
		_, err = os.Stdout.WriteString(text)
		return err
	}
	table, err := xmlmarkjob.ConfigTable()
	if err == nil {
		_, err = os.Stdout.WriteString(table)
	}
	return err
}

func xmlmarkRun(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench xmlmark run", "CONFIG.ini|NAME [flags]")
	cliflag.SetHelp(fs, helpText("xmlmark-run.txt", "{{builtins}}", strings.Join(xmlmark.BuiltinNames(), ", ")))
	only := fs.String("only", "", "run only one kind of the configuration's mix: dom, sax or pull")
	validation := fs.Int("validation", 0, "override the configuration's Validation: the percentage (0-100) of each kind's transactions that validate their document against the invoice schema (XSD)")
	var f pipelineFlags
	f.register(fs, driver.Phases{}, "") // the configuration's phases, which the flags override
	// the configuration may come before or after the flags
	if err := cliflag.Parse(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cliflag.Errorf("missing the configuration: a built-in name (e.g. DOM4) or an INI file; see 'tradebench xmlmark run --help'")
	}
	name := fs.Arg(0)
	if err := cliflag.Parse(fs, fs.Args()[1:], false); err != nil {
		return err
	}
	d, err := f.config()
	if err != nil {
		return err
	}
	xc, err := xmlmark.LoadConfig(name)
	if err != nil {
		return cliflag.Errorf("%v", err)
	}
	cfg := xmlmarkjob.New(xc)
	f.phases.over(&cfg.Phases)
	if cliflag.Given(fs)["validation"] {
		xc.Validation = *validation
	}
	cfg.Only, cfg.Warn = xmlmark.Kind(*only), os.Stderr
	if err := cfg.Validate(); err != nil {
		return xmlmarkFlags.UsageError(err)
	}
	fmt.Fprintln(os.Stderr, cfg.Header())
	res, err := xmlmarkjob.Run(ctx, cfg, d)
	if res == nil {
		return xmlmarkFlags.OrUsage(err)
	}
	err = f.finish(res, err)
	if serr := xmlmarkjob.WriteSummary(os.Stdout, res); err == nil {
		err = serr
	}
	return err
}

// xmlmarkFlags names the flags that set xmlmarkjob.Config's fields (the phases' are named once).
var xmlmarkFlags = cliflag.Names{"Validation": "validation", "Only": "only"}.With(phaseNames)
