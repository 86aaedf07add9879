package main

import (
	"context"
	"fmt"
	"os"
	"sort"
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
	if *lines < 1 {
		return cliflag.Errorf("--lines must be at least 1, got %d", *lines)
	}
	for _, f := range []string{*out, *xsd} {
		if f != "" && f != "-" {
			if err := checkOutDir(f); err != nil {
				return err
			}
		}
	}
	data, err := xmlmark.Generate(*lines)
	if err != nil {
		return cliflag.Errorf("--lines: %v", err)
	}
	if *out == "-" || *out == "" {
		if _, err := os.Stdout.Write(data); err != nil {
			return err
		}
	} else if err := os.WriteFile(*out, data, 0o644); err != nil {
		return err
	}
	if *xsd != "" {
		if err := os.WriteFile(*xsd, []byte(xmlmark.XSD), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func xmlmarkConfigs(args []string) error {
	fs := cliflag.NewFlagSet("tradebench xmlmark configs", "[NAME]")
	if err := cliflag.Parse(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		for _, n := range xmlmark.BuiltinNames() {
			c, err := xmlmark.LoadConfig(n)
			if err != nil {
				return err
			}
			fmt.Printf("%-5s users %d  dom %3d sax %3d pull %3d  selection %3d%%  content-mod %3d%%  structure-mod %3d%%  serialize %3d%%  docs %s\n",
				n, c.Agents, c.DOMUsage, c.SAXUsage, c.PullParserUsage, c.Selection, c.ContentModification,
				c.StructureModification, c.Serialization, strings.Join(c.XMLFiles, " "))
		}
		return nil
	}
	b, ok := xmlmark.BuiltinINI(fs.Arg(0))
	if !ok {
		return cliflag.Errorf("no built-in configuration %q (built-ins: %s)", fs.Arg(0), strings.Join(xmlmark.BuiltinNames(), ", "))
	}
	_, err := os.Stdout.Write(b)
	return err
}

func xmlmarkRun(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench xmlmark run", "CONFIG.ini|NAME [flags]")
	cliflag.SetHelp(fs, fmt.Sprintf(`usage: tradebench xmlmark run CONFIG.ini|NAME [flags]

Runs an XML Mark configuration: Agents workers, no think time, each iteration one transaction
(the whole life of one document, memory to memory), through RampUp, SteadyState (measured) and
RampDown. NAME is a built-in (%s; see 'tradebench xmlmark configs');
a file uses the old kit's INI keys. Phase lengths in INI files are whole seconds.
XML_FILE_n names a file (relative to the INI file) or a built-in generated invoice inv<N>.xml
(N line items; the original kit's inv100.xml and inv1000.xml).

The mix: DOMUsage, SAXUsage and PullParserUsage are relative weights (the old kit had one
streaming parser per platform, so its SAX configurations set both streaming keys to 100; here
they run half sax, half pull, each reported as its own transaction). --only picks one kind.

Validation = N (--validation N) validates N%% of each kind's transactions against the invoice
schema (github.com/jacoelho/xsd, pure Go; 'tradebench xmlmark gen --xsd' writes the schema): dom
transactions after parsing, sax and pull beside the scan. The validator reads the bytes with its
own parser, so validation adds a second pass. A document the schema rejects fails those
transactions with the validator's rule and element path (e.g. validation.facet at
/Invoice/LineItem/Price).

The configuration's Agents, RampUp, SteadyState and RampDown can be overridden with --users (-c),
--ramp-up, --duration (-d) and --ramp-down. With --out X.json the HTML report goes beside it,
X.html (--no-report: none).

examples:
  tradebench xmlmark run DOM4
  tradebench xmlmark run SAX1 --users 4 --ramp-up 5s --duration 1m --ramp-down 0s --out sax1.json
  tradebench xmlmark run DOM4 --validation 100 --duration 10s
  tradebench xmlmark run my-config.ini --only dom --progress off

flags:
`, strings.Join(xmlmark.BuiltinNames(), ", ")))
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
	set := cliflag.Given(fs)
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
	if err := cfg.Validate(true); err != nil {
		return phaseNames.UsageError(err)
	}
	if set["validation"] {
		xc.Validation = *validation
		if err := xc.Check(); err != nil {
			return cliflag.Errorf("--validation: %v", err)
		}
	}
	kind := xmlmark.Kind(*only)
	if _, err := xc.Mix(kind); err != nil {
		return cliflag.Errorf("--only: %v", err)
	}
	cfg.Only, cfg.Warn = kind, os.Stderr
	fmt.Fprintf(os.Stderr, "xmlmark %s: %d users, ramp-up %v, steady %v, ramp-down %v\n", xc.Name, cfg.Users, cfg.RampUp, cfg.Duration, cfg.RampDown)
	res, err := xmlmarkjob.Run(ctx, cfg, d)
	if res == nil {
		return phaseNames.OrUsage(err)
	}
	err = f.finish(res, err)
	if d, err := xmlmarkjob.DetailOf(res); err == nil {
		mbps := d.ParsedMBPerSec
		kinds := make([]string, 0, len(mbps))
		for k := range mbps {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			fmt.Printf("%s: %.1f MB/s of documents processed\n", k, mbps[k])
		}
	}
	for _, n := range res.Notes {
		fmt.Printf("note: %s\n", n)
	}
	if err != nil {
		return err
	}
	if res.Total.Errors > 0 {
		return fmt.Errorf("%d transactions failed (see the errors above)", res.Total.Errors)
	}
	return nil
}
