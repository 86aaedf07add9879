package xmlmark

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/metrics"
	"github.com/tradebench/tradebench/report"
)

// Document is one invoice held in memory for a run. Transactions read it from memory and write to
// memory only: the benchmark measures XML processing, not file I/O.
type Document struct {
	Name      string // as named in the configuration (XML_FILE_n) or inv<N>.xml
	Source    string // the file it was read from, or "generated"
	Data      []byte
	LineItems int
}

// GeneratedDocument returns the built-in invoice with the given number of line items, named
// inv<N>.xml.
func GeneratedDocument(lines int) (*Document, error) {
	data, err := Generate(lines)
	if err != nil {
		return nil, err
	}
	return &Document{Name: fmt.Sprintf("inv%d.xml", lines), Source: "generated", Data: data, LineItems: lines}, nil
}

// NewDocument checks that data is a well-formed invoice and counts its line items.
func NewDocument(name, source string, data []byte) (*Document, error) {
	r, err := NewPullScanner().Scan(data, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if r.LineItems == 0 {
		return nil, fmt.Errorf("%s: the invoice has no LineItem elements", name)
	}
	return &Document{Name: name, Source: source, Data: data, LineItems: r.LineItems}, nil
}

// LoadDocuments loads the configuration's documents into memory: files as read, built-in names
// (inv100.xml) generated.
func (c *Config) LoadDocuments() ([]*Document, error) {
	var docs []*Document
	for i := range c.XMLFiles {
		p, lines, err := c.docSource(i)
		if err != nil {
			return nil, err
		}
		var d *Document
		if p == "" {
			d, err = GeneratedDocument(lines)
		} else {
			var data []byte
			if data, err = os.ReadFile(p); err == nil {
				d, err = NewDocument(c.XMLFiles[i], p, data)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("XML_FILE_%d: %w", i+1, err)
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// ErrValidationUnsupported is returned (with --strict-validation) for Validation > 0.
var ErrValidationUnsupported = errors.New("XSD validation is not supported: no validating XML Schema parser exists in pure Go among tradebench's dependencies")

// RunOptions are the runner's settings beyond the configuration.
type RunOptions struct {
	// Only restricts the mix to one kind ("" = the configuration's mix).
	Only Kind
	// StrictValidation refuses a configuration with Validation > 0 instead of running without it.
	StrictValidation bool
	// Warn receives warnings before the run (nil = none).
	Warn io.Writer
	// Progress receives the load engine's live progress line (nil = none).
	Progress    io.Writer
	ProgressTTY bool
}

// Mix is the weight of each kind, as configured.
type Mix struct{ DOM, SAX, Pull int }

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
}

// DocumentInfo is one document of the run.
type DocumentInfo struct {
	Name      string `json:"name"`
	Source    string `json:"source"`
	Bytes     int    `json:"bytes"`
	LineItems int    `json:"line_items"`
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

// Mix returns the configuration's transaction mix, restricted to only if given.
func (c *Config) Mix(only Kind) (Mix, error) {
	m := Mix{DOM: c.DOMUsage, SAX: c.SAXUsage, Pull: c.PullParserUsage}
	switch only {
	case "":
		return m, nil
	case KindDOM:
		m = Mix{DOM: m.DOM}
	case KindSAX:
		m = Mix{SAX: m.SAX}
	case KindPull:
		m = Mix{Pull: m.Pull}
	default:
		return Mix{}, fmt.Errorf("unknown transaction kind %q (want dom, sax or pull)", only)
	}
	if m == (Mix{}) {
		return Mix{}, fmt.Errorf("%s has %s usage 0: it runs no %s transactions", c.Name, only, only)
	}
	return m, nil
}

// expected is what a transaction on one document must produce; every transaction is checked
// against it, so a parser that silently skipped work would fail the run rather than win it.
type expected struct {
	k      int // line items accessed
	access Access
	tree   TreeResult // Serialized: the size of a serialized run's output
}

// workload is the load engine's view of a run.
type workload struct {
	cfg     *Config
	docs    []*Document
	exp     []expected
	kinds   []Kind
	weights []int
}

type user struct {
	w       *workload
	id      int
	tree    TreeWorker
	sax     *SAXScanner
	pull    *PullScanner
	current []int // smooth weighted round-robin state
	domN    int64 // tree transactions done (serialization schedule)
}

func (w *workload) NewUser(id int) load.User {
	u := &user{w: w, id: id, sax: NewSAXScanner(), pull: NewPullScanner(), current: make([]int, len(w.kinds))}
	// users start at different points of the mix so they do not all run the same kind at once
	for i := 0; i < id%100; i++ {
		u.nextKind()
	}
	return u
}

// nextKind picks by smooth weighted round-robin: exact proportions, evenly interleaved, no
// random numbers.
func (u *user) nextKind() Kind {
	total, best := 0, 0
	for i, wt := range u.w.weights {
		u.current[i] += wt
		total += wt
		if u.current[i] > u.current[best] {
			best = i
		}
	}
	u.current[best] -= total
	return u.w.kinds[best]
}

// every reports whether the n-th (0-based) event of a series is one of pct% of them, spread
// evenly (pct = 100: all; 0: none).
func every(n int64, pct int) bool {
	return (n+1)*int64(pct)/100 > n*int64(pct)/100
}

func (u *user) Iterate(ctx context.Context, it *load.Iteration) error {
	kind := u.nextKind()
	di := int((it.Number() + int64(u.id)) % int64(len(u.w.docs)))
	doc, exp := u.w.docs[di], &u.w.exp[di]
	start := it.StartTx()
	err := u.transaction(kind, doc, exp)
	if err != nil {
		err = metrics.Failf(string(kind), "%s: %v", doc.Name, err)
	}
	it.Done(string(kind), start, err)
	return nil
}

func (u *user) transaction(kind Kind, doc *Document, exp *expected) error {
	c := u.w.cfg
	switch kind {
	case KindDOM:
		ser := every(u.domN, c.Serialization) // Serialization, not Validation: the XML Mark paper's footnote 1
		u.domN++
		r, err := u.tree.Run(doc.Data, TreeOptions{Selection: c.Selection, ContentModification: c.ContentModification,
			StructureModification: c.StructureModification, Serialize: ser})
		if err != nil {
			return err
		}
		want := exp.tree
		if !ser {
			want.Serialized = 0
		}
		if r != want {
			return fmt.Errorf("tree transaction did not do what it should: got %+v, want %+v", r, want)
		}
	case KindSAX, KindPull:
		var r ScanResult
		var err error
		if kind == KindSAX {
			r, err = u.sax.Scan(doc.Data, exp.k)
		} else {
			r, err = u.pull.Scan(doc.Data, exp.k)
		}
		if err != nil {
			return err
		}
		if r.Access != exp.access || r.LineItems != doc.LineItems {
			return fmt.Errorf("scan read %d items (digest %x) of %d, want %d (digest %x) of %d",
				r.Access.Items, r.Access.Digest, r.LineItems, exp.access.Items, exp.access.Digest, doc.LineItems)
		}
	}
	return nil
}

// Run runs the configuration under the load engine: Agents workers, no think time, one
// transaction (one document's whole life) per iteration, through RampUp, SteadyState (measured)
// and RampDown.
func Run(ctx context.Context, c *Config, opt RunOptions) (*report.Results, error) {
	mix, err := c.Mix(opt.Only)
	if err != nil {
		return nil, err
	}
	var notes []string
	if c.Validation > 0 {
		if opt.StrictValidation {
			return nil, fmt.Errorf("Validation = %d: %w; set Validation = 0 to run", c.Validation, ErrValidationUnsupported)
		}
		msg := fmt.Sprintf("Validation = %d was NOT applied: %v; documents were processed without validation", c.Validation, ErrValidationUnsupported)
		notes = append(notes, msg)
		if opt.Warn != nil {
			fmt.Fprintf(opt.Warn, "warning: %s\n", msg)
		}
	}
	w, err := prepare(c, mix)
	if err != nil {
		return nil, err
	}
	docs := w.docs
	res, err := load.Run(ctx, load.Config{Users: c.Agents, RampUp: c.RampUp, Steady: c.SteadyState, RampDown: c.RampDown,
		Progress: opt.Progress, ProgressTTY: opt.ProgressTTY, Label: "xmlmark " + c.Name}, w)
	if res == nil {
		return nil, err
	}
	res.Workload = "xmlmark"
	res.Scenario = c.Name
	res.Target = fmt.Sprintf("in-process, %s: dom = github.com/beevik/etree v1.8.1, sax = github.com/orisano/gosax v1.1.1, pull = encoding/xml", runtime.Version())
	res.Settings.Think = "0s"
	rs := RunSettings{DOMUsage: c.DOMUsage, SAXUsage: c.SAXUsage, PullParserUsage: c.PullParserUsage,
		Selection: c.Selection, Validation: c.Validation, ContentModification: c.ContentModification,
		StructureModification: c.StructureModification, Serialization: c.Serialization,
		XMLDocCount: len(c.XMLFiles), Only: string(opt.Only)}
	d := Detail{Mix: MixShares{DOM: mix.DOM, SAX: mix.SAX, Pull: mix.Pull}, ParsedMBPerSec: map[string]float64{}}
	var bytesSum int
	for _, doc := range docs {
		d.Documents = append(d.Documents, DocumentInfo{Name: doc.Name, Source: doc.Source, Bytes: len(doc.Data), LineItems: doc.LineItems})
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
	return res, err
}

// prepare loads the documents and runs every kind once on each (the preflight).
func prepare(c *Config, mix Mix) (*workload, error) {
	docs, err := c.LoadDocuments()
	if err != nil {
		return nil, err
	}
	w := &workload{cfg: c, docs: docs}
	for _, kw := range []struct {
		k  Kind
		wt int
	}{{KindDOM, mix.DOM}, {KindSAX, mix.SAX}, {KindPull, mix.Pull}} {
		if kw.wt > 0 {
			w.kinds = append(w.kinds, kw.k)
			w.weights = append(w.weights, kw.wt)
		}
	}
	// Preflight: run every kind once on every document, so a document that one parser rejects
	// fails here with a clear message instead of as a run full of errors, and record the result
	// each transaction must reproduce.
	for _, d := range docs {
		e := expected{k: Items(d.LineItems, c.Selection)}
		if mix.DOM > 0 {
			var tw TreeWorker
			if e.tree, err = tw.Run(d.Data, TreeOptions{Selection: c.Selection, ContentModification: c.ContentModification,
				StructureModification: c.StructureModification, Serialize: true}); err != nil {
				return nil, fmt.Errorf("%s: tree transaction: %w", d.Name, err)
			}
			if _, err := ParseTree(tw.Output()); err != nil {
				return nil, fmt.Errorf("%s: the serialized tree does not parse back: %w", d.Name, err)
			}
			e.access = e.tree.Access
		}
		var scans []ScanResult
		if mix.SAX > 0 {
			r, err := NewSAXScanner().Scan(d.Data, e.k)
			if err != nil {
				return nil, fmt.Errorf("%s: sax scan: %w", d.Name, err)
			}
			scans = append(scans, r)
		}
		if mix.Pull > 0 {
			r, err := NewPullScanner().Scan(d.Data, e.k)
			if err != nil {
				return nil, fmt.Errorf("%s: pull scan: %w", d.Name, err)
			}
			scans = append(scans, r)
		}
		for i, r := range scans {
			if mix.DOM == 0 && i == 0 {
				e.access = r.Access
			}
			if r.Access != e.access {
				return nil, fmt.Errorf("%s: the parsers disagree on the values read (%+v vs %+v)", d.Name, r.Access, e.access)
			}
		}
		w.exp = append(w.exp, e)
	}
	return w, nil

}
