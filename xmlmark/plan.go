package xmlmark

import (
	"errors"
	"fmt"
	"os"
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

// Mix is the weight of each kind, as configured.
type Mix struct{ DOM, SAX, Pull int }

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

// Expected is what a transaction on one document must produce; every transaction is checked
// against it, so a parser that silently skipped work fails the run rather than win it.
type Expected struct {
	Items  int // line items accessed
	Access Access
	Tree   TreeResult // Serialized: the size of a serialized run's output
	// Invalid is the schema's verdict on the document when the configuration validates (nil:
	// valid, or Validation = 0). An invalid document is still run: every validated transaction
	// on it fails with this error, as the original kit's validating parsers failed.
	Invalid *InvalidError
}

// Plan is a configuration ready to run: its documents in memory, what each kind of transaction
// must produce on each, and the mix as kinds with their weights.
type Plan struct {
	Config   *Config
	Docs     []*Document
	Expected []Expected
	Kinds    []Kind
	Weights  []int
	// Schema validates Validation% of each kind's transactions (nil when Validation = 0).
	Schema *Schema
}

// Prepare checks the configuration, loads the documents and runs every kind once on each (the
// preflight); with Validation > 0 it also compiles the invoice schema and validates each document
// once, recording the verdict in Expected.Invalid.
func (c *Config) Prepare(mix Mix) (*Plan, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	docs, err := c.LoadDocuments()
	if err != nil {
		return nil, err
	}
	w := &Plan{Config: c, Docs: docs}
	var val *Validator
	if c.Validation > 0 {
		if w.Schema, err = InvoiceSchema(); err != nil {
			return nil, err
		}
		if val, err = w.Schema.NewValidator(); err != nil {
			return nil, err
		}
	}
	for _, kw := range []struct {
		k  Kind
		wt int
	}{{KindDOM, mix.DOM}, {KindSAX, mix.SAX}, {KindPull, mix.Pull}} {
		if kw.wt > 0 {
			w.Kinds = append(w.Kinds, kw.k)
			w.Weights = append(w.Weights, kw.wt)
		}
	}
	// Preflight: run every kind once on every document, so a document that one parser rejects
	// fails here with a clear message instead of as a run full of errors, and record the result
	// each transaction must reproduce.
	for _, d := range docs {
		e := Expected{Items: Items(d.LineItems, c.Selection)}
		if mix.DOM > 0 {
			var tw TreeWorker
			if e.Tree, err = tw.Run(d.Data, TreeOptions{Selection: c.Selection, ContentModification: c.ContentModification,
				StructureModification: c.StructureModification, Serialize: true}); err != nil {
				return nil, fmt.Errorf("%s: tree transaction: %w", d.Name, err)
			}
			if _, err := ParseTree(tw.Output()); err != nil {
				return nil, fmt.Errorf("%s: the serialized tree does not parse back: %w", d.Name, err)
			}
			e.Access = e.Tree.Access
		}
		var scans []ScanResult
		if mix.SAX > 0 {
			r, err := NewSAXScanner().Scan(d.Data, e.Items)
			if err != nil {
				return nil, fmt.Errorf("%s: sax scan: %w", d.Name, err)
			}
			scans = append(scans, r)
		}
		if mix.Pull > 0 {
			r, err := NewPullScanner().Scan(d.Data, e.Items)
			if err != nil {
				return nil, fmt.Errorf("%s: pull scan: %w", d.Name, err)
			}
			scans = append(scans, r)
		}
		for i, r := range scans {
			if mix.DOM == 0 && i == 0 {
				e.Access = r.Access
			}
			if r.Access != e.Access {
				return nil, fmt.Errorf("%s: the parsers disagree on the values read (%+v vs %+v)", d.Name, r.Access, e.Access)
			}
		}
		if val != nil {
			if err := val.Validate(d.Data); err != nil {
				if !errors.As(err, &e.Invalid) {
					return nil, fmt.Errorf("%s: validating: %w", d.Name, err)
				}
			}
		}
		w.Expected = append(w.Expected, e)
	}
	return w, nil
}

// Worker runs transactions on a plan's documents; one per load user (it reuses its parsers'
// buffers, so it is not safe for concurrent use).
type Worker struct {
	plan *Plan
	tree TreeWorker
	sax  *SAXScanner
	pull *PullScanner
	val  *Validator // made on the first validated transaction
	domN int64      // tree transactions done (serialization schedule)
	// transactions done of each kind (validation schedule: Validation% of each kind, so a SAX
	// configuration's alternating sax and pull transactions are validated alike)
	kindN [3]int64
}

// NewWorker returns a worker on p.
func (p *Plan) NewWorker() *Worker {
	return &Worker{plan: p, sax: NewSAXScanner(), pull: NewPullScanner()}
}

// every reports whether the n-th (0-based) event of a series is one of pct% of them, spread
// evenly (pct = 100: all; 0: none).
func every(n int64, pct int) bool {
	return (n+1)*int64(pct)/100 > n*int64(pct)/100
}

// validator returns the validator when this transaction of kind is one of the Validation% that
// are validated (spread evenly over the kind's transactions, as serialization is), else nil.
func (u *Worker) validator(kind Kind) (*Validator, error) {
	var n *int64
	switch kind {
	case KindDOM:
		n = &u.kindN[0]
	case KindSAX:
		n = &u.kindN[1]
	default:
		n = &u.kindN[2]
	}
	validate := every(*n, u.plan.Config.Validation)
	*n++
	if !validate || u.plan.Schema == nil {
		return nil, nil
	}
	if u.val == nil {
		v, err := u.plan.Schema.NewValidator()
		if err != nil {
			return nil, err
		}
		u.val = v
	}
	return u.val, nil
}

// Do runs one transaction of the given kind on the plan's i-th document and checks its result
// against the preflight's. A validated transaction on a document the schema rejects fails with
// the validator's *InvalidError.
func (u *Worker) Do(kind Kind, i int) error {
	c, doc, exp := u.plan.Config, u.plan.Docs[i], &u.plan.Expected[i]
	val, err := u.validator(kind)
	if err != nil {
		return err
	}
	switch kind {
	case KindDOM:
		ser := every(u.domN, c.Serialization) // Serialization, not Validation: the XML Mark paper's footnote 1
		u.domN++
		r, err := u.tree.Run(doc.Data, TreeOptions{Selection: c.Selection, ContentModification: c.ContentModification,
			StructureModification: c.StructureModification, Serialize: ser, Validator: val})
		if err != nil {
			return err
		}
		want := exp.Tree
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
			r, err = u.sax.Scan(doc.Data, exp.Items)
		} else {
			r, err = u.pull.Scan(doc.Data, exp.Items)
		}
		if err != nil {
			return err
		}
		if r.Access != exp.Access || r.LineItems != doc.LineItems {
			return fmt.Errorf("scan read %d items (digest %x) of %d, want %d (digest %x) of %d",
				r.Access.Items, r.Access.Digest, r.LineItems, exp.Access.Items, exp.Access.Digest, doc.LineItems)
		}
		// The validator cannot consume the scanners' events (gosax's or encoding/xml's): it
		// validates the same bytes in a second pass, so a validated streaming transaction costs
		// a scan plus a full validating parse, not one validating scan.
		if val != nil {
			if err := val.Validate(doc.Data); err != nil {
				return err
			}
		}
	}
	return nil
}

// TreeOutput is the last serialized tree transaction's output (empty when it did not serialize).
func (u *Worker) TreeOutput() []byte { return u.tree.Output() }
