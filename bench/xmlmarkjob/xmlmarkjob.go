// Package xmlmarkjob runs XML Mark under the load engine: Agents users with no think time, one
// transaction (one invoice document's whole life, as package xmlmark defines it) per iteration,
// through the configuration's ramp-up, steady state (measured) and ramp-down.
package xmlmarkjob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/disclose"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/progress"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/xmlmark"
)

// RunOptions are the runner's settings beyond the configuration.
type RunOptions struct {
	// Only restricts the mix to one kind ("" = the configuration's mix).
	Only xmlmark.Kind
	// Warn receives warnings before the run (nil = none): a document the schema rejects when
	// the configuration validates.
	Warn io.Writer
	// Progress receives the load engine's live progress line (nil = none).
	Progress    io.Writer
	ProgressTTY bool
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
	plan *xmlmark.Plan
}

type user struct {
	w       *workload
	id      int
	worker  *xmlmark.Worker
	current []int // smooth weighted round-robin state
}

func (w *workload) NewUser(id int) load.User {
	u := &user{w: w, id: id, worker: w.plan.NewWorker(), current: make([]int, len(w.plan.Kinds))}
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
	return nil
}

// Run runs the configuration under the load engine: Agents workers, no think time, one
// transaction (one document's whole life) per iteration, through RampUp, SteadyState (measured)
// and RampDown.
func Run(ctx context.Context, c *xmlmark.Config, opt RunOptions) (*report.Results, error) {
	mix, err := c.Mix(opt.Only)
	if err != nil {
		return nil, err
	}
	var notes []string
	plan, err := c.Prepare(mix)
	if err != nil {
		return nil, err
	}
	docs := plan.Docs
	// An invalid document is run, not refused: its validated transactions fail, as the original
	// kit's validating parsers failed; say so before the run rather than after it.
	for i, e := range plan.Expected {
		if e.Invalid != nil && opt.Warn != nil {
			fmt.Fprintf(opt.Warn, "warning: %s is %v; its validated transactions (Validation = %d%%) will fail\n", docs[i].Name, e.Invalid, c.Validation)
		}
	}
	lc := load.Config{Users: c.Agents, RampUp: c.RampUp, Steady: c.SteadyState, RampDown: c.RampDown}
	lc.Watchers = []load.Watcher{&progress.Line{W: opt.Progress, TTY: opt.ProgressTTY, Label: "xmlmark " + c.Name, Total: c.RampUp + c.SteadyState + c.RampDown}}
	res, err := load.Run(ctx, lc, &workload{plan: plan})
	if res == nil {
		return nil, err
	}
	disclose.Fill(res)
	res.Workload = "xmlmark"
	res.Scenario = c.Name
	res.Target = fmt.Sprintf("in-process, %s: dom = github.com/beevik/etree v1.8.1, sax = github.com/orisano/gosax v1.1.1, pull = encoding/xml", runtime.Version())
	if plan.Schema != nil {
		res.Target += ", validation = " + xmlmark.ValidatorModule
	}
	res.Settings.Think = "0s"
	rs := RunSettings{DOMUsage: c.DOMUsage, SAXUsage: c.SAXUsage, PullParserUsage: c.PullParserUsage,
		Selection: c.Selection, Validation: c.Validation, ContentModification: c.ContentModification,
		StructureModification: c.StructureModification, Serialization: c.Serialization,
		XMLDocCount: len(c.XMLFiles), Only: string(opt.Only)}
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
	var serr error
	if res.Settings.Workload, serr = report.Section(rs); serr == nil {
		res.Detail, serr = report.Section(d)
	}
	if serr != nil {
		return res, errors.Join(err, serr)
	}
	res.Notes = append(res.Notes, notes...)
	res.Notes = append(res.Notes, "phase lengths are seconds in the old kit's INI files; think time is zero (a new transaction starts when the last ends)")
	if c.SchemaFile != "" || c.OutputDir != "" || c.OutputFilePrefix != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("SchemaFile, OutputDir and OutputFilePrefix (%s) are not used: the schema is built in (tradebench xmlmark gen --xsd) and results go to --out",
			strings.Trim(strings.Join([]string{c.SchemaFile, c.OutputDir, c.OutputFilePrefix}, ", "), ", ")))
	}
	// the documents are processed in this process: the driver's CPU is the system's
	return res, errors.Join(err, driver.Judge(res, report.DefaultRules(), ""))
}
