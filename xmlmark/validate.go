package xmlmark

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/jacoelho/xsd"
	"github.com/jacoelho/xsd/xsderrors"
)

// ValidatorModule names the XML Schema validator (module and version, as go.mod requires it) in
// results and docs; a test keeps it equal to go.mod's requirement.
const ValidatorModule = "github.com/jacoelho/xsd v0.4.0"

// Schema is the invoice schema (XSD) compiled for validation. It is immutable and shared by every
// goroutine; each validates through its own Validator.
//
// The validator is github.com/jacoelho/xsd: pure Go (the binary stays static and cross-compiles),
// XML Schema 1.0, streaming (it reads an io.Reader once and keeps no tree). It has its own XML
// tokenizer: it cannot consume an etree tree or gosax events, so a validated transaction reads
// the document bytes twice, once by its parser and once by the validator (docs/xmlmark.md).
type Schema struct {
	engine *xsd.Engine
}

// compiled is the invoice schema, compiled once per process on first use.
var compiled = sync.OnceValues(func() (*Schema, error) {
	e, err := xsd.Compile(xsd.Bytes("invoice.xsd", []byte(XSD)))
	if err != nil {
		return nil, fmt.Errorf("compiling the invoice schema: %w", err)
	}
	return &Schema{engine: e}, nil
})

// InvoiceSchema returns the compiled invoice schema.
func InvoiceSchema() (*Schema, error) { return compiled() }

// maxDocumentBytes lifts the validator's default 64 MB bound on one document: its limits guard
// against hostile input, but XML Mark's documents are the user's own and already in memory
// (inv<N>.xml goes up to a million line items, about 900 MB).
const maxDocumentBytes = 1 << 40

// Validator validates documents against a Schema. One per goroutine: it reuses the validator's
// buffers between documents, as the load's workers reuse their parsers'.
type Validator struct {
	sess *xsd.Session
	r    bytes.Reader
}

// NewValidator returns a validator on s.
func (s *Schema) NewValidator() (*Validator, error) {
	sess, err := s.engine.NewSession(xsd.ValidateOptions{MaxInstanceBytes: maxDocumentBytes})
	if err != nil {
		return nil, err
	}
	return &Validator{sess: sess}, nil
}

// Validate checks data against the schema: nil when it is valid, else an *InvalidError carrying
// the validator's first violation.
func (v *Validator) Validate(data []byte) error {
	v.r.Reset(data)
	err := v.sess.Validate(&v.r)
	v.r.Reset(nil) // keep no reference to the document
	if err == nil {
		return nil
	}
	all := xsderrors.Flatten(err)
	ie := &InvalidError{Count: len(all)}
	if xe, ok := errors.AsType[*xsderrors.Error](all[0]); ok {
		ie.Rule, ie.Path, ie.Line, ie.Column, ie.Message = string(xe.Code()), xe.Path(), xe.Line(), xe.Column(), xe.Message()
		if c := xe.Cause(); c != nil {
			ie.Message += ": " + c.Error()
		}
	} else {
		ie.Rule, ie.Message = "validator", all[0].Error()
	}
	return ie
}

// InvalidError is a document the invoice schema rejects: the validator's first violation (its
// rule code, the element path, where it is, its message) and how many it reported.
type InvalidError struct {
	Rule         string // the validator's code: validation.element, validation.facet, validation.attribute…
	Path         string // the element, as /Invoice/LineItem/Price
	Line, Column int
	Message      string // e.g. "invalid attribute Currency: pattern facet failed"
	Count        int    // violations reported (Rule…Message describe the first)
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("not valid against the invoice schema: %s at %s, %s", e.Rule, e.Path, e.Detail())
}

// Detail is the violation without its rule and path: where it is, and the validator's message.
func (e *InvalidError) Detail() string {
	more := ""
	if e.Count > 1 {
		more = fmt.Sprintf(" (and %d more)", e.Count-1)
	}
	return fmt.Sprintf("line %d column %d: %s%s", e.Line, e.Column, e.Message, more)
}
