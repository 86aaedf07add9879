package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tradebench/tradebench/bench/xmlmarkjob"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/xmlmark"
)

func init() {
	register(&command{name: "xmlmark", summary: "XML Mark: the XML document lifecycle benchmark (gen, run, configs)", run: runXMLMark})
}

var xmlmarkUsage = helpText("xmlmark.txt")

func runXMLMark(ctx context.Context, args []string) error {
	return runSubcommand(ctx, args, xmlmarkUsage,
		subcommand{"gen", func(_ context.Context, args []string) error { return xmlmarkGen(args) }},
		subcommand{"run", xmlmarkRun},
		subcommand{"configs", func(_ context.Context, args []string) error { return xmlmarkConfigs(args) }})
}

func xmlmarkGen(args []string) error {
	fs := newFlagSet("xmlmark gen", "[--lines N] [--out FILE] [--xsd FILE]")
	setHelp(fs, helpText("xmlmark-gen.txt"))
	lines := fs.Int("lines", xmlmark.DOMLines, "line items in the invoice (the XML Mark paper uses 100 ≈ 90 KB for DOM, 1000 ≈ 900 KB for streaming)")
	out := fs.String("out", "-", "write the document to FILE (- = standard output)")
	xsd := fs.String("xsd", "", "also write the invoice schema (XSD) to FILE")
	if err := parseFlags(fs, args, false); err != nil {
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
		return usageErrorf("--lines: %v", err)
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
	fs := newFlagSet("xmlmark configs", "[NAME]")
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		text, err := xmlmarkjob.ConfigText(fs.Arg(0))
		if err != nil {
			return usageErrorf("%v", err)
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
	fs := newFlagSet("xmlmark run", "CONFIG.ini|NAME [flags]")
	setHelp(fs, helpText("xmlmark-run.txt", "{{builtins}}", strings.Join(xmlmark.BuiltinNames(), ", ")))
	only := fs.String("only", "", "run only one kind of the configuration's mix: dom, sax or pull")
	validation := fs.Int("validation", 0, "override the configuration's Validation: the percentage (0-100) of each kind's transactions that validate their document against the invoice schema (XSD)")
	var f pipelineFlags
	f.register(fs, driver.Phases{}, "") // the configuration's phases, which the flags override
	// the configuration may come before or after the flags
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf("missing the configuration: a built-in name (e.g. DOM4) or an INI file; see 'tradebench xmlmark run --help'")
	}
	name := fs.Arg(0)
	if err := parseFlags(fs, fs.Args()[1:], false); err != nil {
		return err
	}
	d, err := f.config()
	if err != nil {
		return err
	}
	xc, err := xmlmark.LoadConfig(name)
	if err != nil {
		return usageErrorf("%v", err)
	}
	cfg := xmlmarkjob.New(xc)
	f.phases.over(&cfg.Phases)
	if givenFlags(fs)["validation"] {
		xc.Validation = *validation
	}
	cfg.Only, cfg.Warn = xmlmark.Kind(*only), os.Stderr
	if err := cfg.Validate(); err != nil {
		return xmlmarkFlags.usageError(err)
	}
	fmt.Fprintln(os.Stderr, cfg.Header())
	res, err := xmlmarkjob.Run(ctx, cfg, d)
	if res == nil {
		return xmlmarkFlags.orUsage(err)
	}
	err = f.finish(res, err)
	if serr := xmlmarkjob.WriteSummary(os.Stdout, res); err == nil {
		err = serr
	}
	return err
}

// xmlmarkFlags names the flags that set xmlmarkjob.Config's fields (the phases' are named once).
var xmlmarkFlags = flagNames{"Validation": "validation", "Only": "only"}
