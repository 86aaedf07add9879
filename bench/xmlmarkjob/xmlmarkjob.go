// Package xmlmarkjob runs XML Mark under the load engine: Agents users with no think time, one
// transaction (one invoice document's whole life, as package xmlmark defines it) per iteration,
// through the configuration's ramp-up, steady state (measured) and ramp-down.
package xmlmarkjob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/xmlmark"
)

// Config is one XML Mark run: the configuration (the old kit's INI keys) under a load shape.
type Config struct {
	// Phases is the load shape: from the configuration's Agents (Users), RampUp, SteadyState
	// (Duration) and RampDown (New), which the command line's flags override. No think time
	// unless one is given.
	driver.Phases
	// XML is the configuration: the mix, the documents, the transactions' work.
	XML *xmlmark.Config
	// Only restricts the mix to one kind ("" = the configuration's mix).
	Only xmlmark.Kind
	// Warn receives warnings before the run (nil = none): a document the schema rejects when
	// the configuration validates.
	Warn io.Writer
}

// New is the run of configuration c under its own phases.
func New(c *xmlmark.Config) Config {
	return Config{XML: c, Phases: driver.Phases{Users: c.Agents, RampUp: c.RampUp, Duration: c.SteadyState, RampDown: c.RampDown}}
}

// Validate reports a run that cannot be made, as a *setting.Error naming the field: the phases
// (a measured window needed), the configuration's settings and the Only restriction against the
// configuration's mix. The configuration was checked when it was read, so what Check finds now
// is an override: the Validation percentage (the only one the command line sets).
func (c *Config) Validate() error {
	if err := c.Phases.Validate(true); err != nil {
		return err
	}
	if err := c.XML.Check(); err != nil {
		return setting.Errorf("Validation", "%v", err)
	}
	if _, err := c.XML.Mix(c.Only); err != nil {
		return setting.Errorf("Only", "%v", err)
	}
	return nil
}

// Header is the line a run starts with: the configuration and its load shape.
func (c *Config) Header() string {
	return fmt.Sprintf("xmlmark %s: %d users, ramp-up %v, steady %v, ramp-down %v", c.XML.Name, c.Users, c.RampUp, c.Duration, c.RampDown)
}

// WriteSummary writes what a run's results add to the common summary: each kind's MB/s of
// documents processed, then the run's notes. A run in which transactions failed returns an
// error saying how many (the failures themselves are in the summary's errors).
func WriteSummary(w io.Writer, res *report.Results) error {
	if d, err := DetailOf(res); err == nil {
		for _, k := range slices.Sorted(maps.Keys(d.ParsedMBPerSec)) {
			fmt.Fprintf(w, "%s: %.1f MB/s of documents processed\n", k, d.ParsedMBPerSec[k])
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if res.Total.Errors > 0 {
		return fmt.Errorf("%d transactions failed (see the errors above)", res.Total.Errors)
	}
	return nil
}

// Run runs c through the one pipeline (driver.Drive) under the drive's other settings d.
func Run(ctx context.Context, c Config, d driver.Config) (*report.Results, error) {
	d.Phases = c.Phases
	return driver.Drive(ctx, d, &c)
}

// RunSettings are XML Mark's own settings in its results (settings.workload), under the old
// kit's INI names; Agents and the phases are the results' common settings (users, ramp_up...).
type RunSettings struct {
	DOMUsage              int    `json:"DOMUsage"`
	SAXUsage              int    `json:"SAXUsage"`
	PullParserUsage       int    `json:"PullParserUsage"`
	Selection             int    `json:"Selection"`
	Validation            int    `json:"Validation"`
	ContentModification   int    `json:"ContentModification"`
	StructureModification int    `json:"StructureModification"`
	Serialization         int    `json:"Serialization"`
	XMLDocCount           int    `json:"XMLDocCount"`
	Only                  string `json:"only,omitempty"` // the --only restriction of the mix
}

// Detail is XML Mark's own results (the results' detail section).
type Detail struct {
	Documents []DocumentInfo `json:"documents"`
	Mix       MixShares      `json:"mix"`
	// ParsedMBPerSec is each transaction kind's throughput in MB of documents processed a second.
	ParsedMBPerSec map[string]float64 `json:"parsed_mb_per_sec"`
	// Validator names the XML Schema validator (module and version) when Validation > 0.
	Validator string `json:"validator,omitempty"`
}

// DocumentInfo is one document of the run.
type DocumentInfo struct {
	Name      string `json:"name"`
	Source    string `json:"source"`
	Bytes     int    `json:"bytes"`
	LineItems int    `json:"line_items"`
	// Invalid is the schema's verdict when the run validates and the document is not valid
	// (every validated transaction on it failed with this message).
	Invalid string `json:"invalid,omitempty"`
}

// MixShares is the transaction mix as run, in percent of each kind.
type MixShares struct {
	DOM  int `json:"dom"`
	SAX  int `json:"sax"`
	Pull int `json:"pull"`
}

// SettingsOf reads XML Mark's own settings from res; report.ErrNoSection when res is not XML Mark's.
func SettingsOf(res *report.Results) (RunSettings, error) {
	return report.SectionAs[RunSettings](res.Settings.Workload)
}

// DetailOf reads XML Mark's own results from res; report.ErrNoSection when res is not XML Mark's.
func DetailOf(res *report.Results) (Detail, error) {
	return report.SectionAs[Detail](res.Detail)
}

// workload is the load engine's view of a run.
type workload struct {
	plan  *xmlmark.Plan
	think scenario.Think
}

type user struct {
	w       *workload
	id      int
	rng     *rand.Rand
	worker  *xmlmark.Worker
	current []int // smooth weighted round-robin state
}

func (w *workload) NewUser(id int) load.User {
	u := &user{w: w, id: id, worker: w.plan.NewWorker(), current: make([]int, len(w.plan.Kinds)), rng: rand.New(rand.NewPCG(uint64(id), 0x584d4c))}
	// users start at different points of the mix so they do not all run the same kind at once
	for i := 0; i < id%100; i++ {
		u.nextKind()
	}
	return u
}

// nextKind picks by smooth weighted round-robin: exact proportions, evenly interleaved, no
// random numbers.
func (u *user) nextKind() xmlmark.Kind {
	total, best := 0, 0
	for i, wt := range u.w.plan.Weights {
		u.current[i] += wt
		total += wt
		if u.current[i] > u.current[best] {
			best = i
		}
	}
	u.current[best] -= total
	return u.w.plan.Kinds[best]
}

func (u *user) Iterate(ctx context.Context, it *load.Iteration) error {
	kind := u.nextKind()
	di := int((it.Number() + int64(u.id)) % int64(len(u.w.plan.Docs)))
	start := it.StartTx()
	err := u.worker.Do(kind, di)
	if ie, ok := errors.AsType[*xmlmark.InvalidError](err); ok {
		// grouped by the schema rule and element broken, so one corrupt element is one group; the
		// example says where in which document, and the validator's message
		err = recorder.Failf(fmt.Sprintf("invalid: %s at %s", ie.Rule, ie.Path), "%s, %s", u.w.plan.Docs[di].Name, ie.Detail())
	} else if err != nil {
		err = recorder.Failf(string(kind), "%s: %v", u.w.plan.Docs[di].Name, err)
	}
	it.Done(string(kind), start, err)
	if u.w.think.Kind != scenario.ThinkNone {
		it.Think(ctx, u.w.think.Sample(u.rng))
	}
	return nil
}

// Prepare implements driver.Workload: the documents generated or read and checked, the mix
// planned; an invalid document is run, not refused (its validated transactions fail, as the
// original kit's validating parsers failed), with a warning before the run.
func (cfg *Config) Prepare(_ context.Context, d *driver.Config) (*driver.Run, error) {
	c := cfg.XML
	mix, err := c.Mix(cfg.Only)
	if err != nil {
		return nil, err
	}
	plan, err := c.Prepare(mix)
	if err != nil {
		return nil, err
	}
	for i, e := range plan.Expected {
		if e.Invalid != nil && cfg.Warn != nil {
			fmt.Fprintf(cfg.Warn, "warning: %s is %v; its validated transactions (Validation = %d%%) will fail\n", plan.Docs[i].Name, e.Invalid, c.Validation)
		}
	}
	think := d.ThinkOr(scenario.Think{})
	// the documents are processed in this process: the driver's CPU is the system's (Target "")
	return &driver.Run{Name: "xmlmark " + c.Name, Users: &workload{plan: plan, think: think},
		Steps: steps{cfg: cfg, plan: plan, mix: mix, think: think}}, nil
}

// steps are XML Mark's part of a run: what its results say of the documents and the mix.
type steps struct {
	cfg   *Config
	plan  *xmlmark.Plan
	mix   xmlmark.Mix
	think scenario.Think
}

// Describe implements driver.Steps.
func (s steps) Describe(_ context.Context, res *report.Results) error {
	return s.cfg.describe(res, s.plan, s.mix, s.think)
}

// describe fills XML Mark's part of the results.
func (cfg *Config) describe(res *report.Results, plan *xmlmark.Plan, mix xmlmark.Mix, think scenario.Think) error {
	c, docs := cfg.XML, plan.Docs
	var notes []string
	res.Workload = "xmlmark"
	res.Scenario = c.Name
	res.Target = fmt.Sprintf("in-process, %s: dom = github.com/beevik/etree v1.8.1, sax = github.com/orisano/gosax v1.1.1, pull = encoding/xml", runtime.Version())
	if plan.Schema != nil {
		res.Target += ", validation = " + xmlmark.ValidatorModule
	}
	res.Settings.Think = think.Mean().String()
	rs := RunSettings{DOMUsage: c.DOMUsage, SAXUsage: c.SAXUsage, PullParserUsage: c.PullParserUsage,
		Selection: c.Selection, Validation: c.Validation, ContentModification: c.ContentModification,
		StructureModification: c.StructureModification, Serialization: c.Serialization,
		XMLDocCount: len(c.XMLFiles), Only: string(cfg.Only)}
	d := Detail{Mix: MixShares{DOM: mix.DOM, SAX: mix.SAX, Pull: mix.Pull}, ParsedMBPerSec: map[string]float64{}}
	if plan.Schema != nil {
		d.Validator = xmlmark.ValidatorModule
		notes = append(notes, fmt.Sprintf("Validation = %d%%: that share of each kind's transactions validated its document against the invoice schema (%s), which reads the bytes with its own parser: a second pass beside the transaction's parser", c.Validation, xmlmark.ValidatorModule))
	}
	var bytesSum int
	for i, doc := range docs {
		di := DocumentInfo{Name: doc.Name, Source: doc.Source, Bytes: len(doc.Data), LineItems: doc.LineItems}
		if inv := plan.Expected[i].Invalid; inv != nil {
			di.Invalid = inv.Error()
		}
		d.Documents = append(d.Documents, di)
		bytesSum += len(doc.Data)
	}
	// documents are used round-robin, so the mean size converts transactions to bytes parsed
	meanBytes := float64(bytesSum) / float64(len(docs))
	for _, t := range res.Transactions {
		d.ParsedMBPerSec[t.Name] = t.TPS * meanBytes / 1e6
	}
	var err error
	if res.Settings.Workload, err = report.Section(rs); err == nil {
		res.Detail, err = report.Section(d)
	}
	if err != nil {
		return err
	}
	res.Notes = append(res.Notes, notes...)
	res.Notes = append(res.Notes, "phase lengths are seconds in the old kit's INI files; think time is zero unless --think is given (a new transaction starts when the last ends)")
	if c.SchemaFile != "" || c.OutputDir != "" || c.OutputFilePrefix != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("SchemaFile, OutputDir and OutputFilePrefix (%s) are not used: the schema is built in (tradebench xmlmark gen --xsd) and results go to --out",
			strings.Trim(strings.Join([]string{c.SchemaFile, c.OutputDir, c.OutputFilePrefix}, ", "), ", ")))
	}
	return nil
}
