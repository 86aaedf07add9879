package xmlmark

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"

	"github.com/orisano/gosax"
)

// ScanResult is what a streaming scan saw: the whole document is scanned, the first k line items
// are accessed.
type ScanResult struct {
	Access    Access
	LineItems int // line items in the document
}

// itemState follows where a streaming scan is inside the invoice, the same way for both
// streaming parsers: depth 1 is the root's children (LineItem), 2 a line item's children (Price),
// 3 a price's children (PriceAmount).
type itemState struct {
	limit    int
	items    int  // line items started so far
	inItem   bool // inside a selected line item
	inPrice  bool
	inAmount bool
	currency []byte
	amount   []byte
	ac       accessor
}

func (s *itemState) reset(limit int) {
	*s = itemState{limit: limit, currency: s.currency[:0], amount: s.amount[:0]}
}

func (s *itemState) start(depth int, local []byte) {
	switch {
	case depth == 1 && string(local) == tagLineItem:
		s.items++
		s.inItem = s.items <= s.limit
		s.currency, s.amount = s.currency[:0], s.amount[:0]
	case depth == 2 && s.inItem && string(local) == tagPrice:
		s.inPrice = true
	case depth == 3 && s.inPrice && string(local) == tagPriceAmount:
		s.inAmount = true
	}
}

func (s *itemState) end(depth int) error {
	switch {
	case depth == 3 && s.inAmount:
		s.inAmount = false
	case depth == 2 && s.inPrice:
		s.inPrice = false
	case depth == 1 && s.inItem:
		s.inItem = false
		if len(s.amount) == 0 {
			return fmt.Errorf("line item %d has no Price/PriceAmount", s.items)
		}
		return s.ac.add(s.currency, s.amount)
	}
	return nil
}

func localName(b []byte) []byte {
	if i := bytes.IndexByte(b, ':'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// SAXScanner scans documents with gosax, a fast streaming reader that (unlike encoding/xml) does
// not check that end tags match; the scanner checks nesting itself so a malformed document fails
// here as it does in the other parsers. One per goroutine; it reuses its buffers.
type SAXScanner struct {
	r     *gosax.Reader
	src   bytes.Reader
	names []byte // open element names, concatenated
	ends  []int  // end offset in names of each open element
	st    itemState
}

// NewSAXScanner returns a scanner with a read buffer suited to the benchmark's documents.
func NewSAXScanner() *SAXScanner {
	return &SAXScanner{r: gosax.NewReaderSize(nil, 64<<10)}
}

// Scan reads data from start to end, accessing the Currency and PriceAmount of the first limit
// line items.
func (s *SAXScanner) Scan(data []byte, limit int) (res ScanResult, err error) {
	// gosax is a third-party scanner of raw bytes; a document malformed in a way it does not
	// expect must come back as an error, never crash a benchmark worker
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed document: the gosax scanner failed: %v", p)
		}
	}()
	s.src.Reset(data)
	s.r.Reset(&s.src)
	s.r.EmitSelfClosingTag = true
	s.names, s.ends = s.names[:0], s.ends[:0]
	s.st.reset(limit)
	sawRoot := false
	for {
		e, err := s.r.Event()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return res, fmt.Errorf("malformed document: %w", err)
		}
		switch e.Type() {
		case gosax.EventEOF:
			if len(s.ends) > 0 {
				return res, fmt.Errorf("malformed document: unexpected end of document inside <%s>", s.top())
			}
			if !sawRoot {
				return res, errors.New("malformed document: no root element")
			}
			return ScanResult{Access: s.st.ac.a, LineItems: s.st.items}, nil
		case gosax.EventStart:
			name, rest := gosax.Name(e.Bytes)
			if len(s.ends) == 0 {
				if sawRoot {
					return res, errors.New("malformed document: more than one root element")
				}
				sawRoot = true
				if string(localName(name)) != tagInvoice {
					return res, fmt.Errorf("not an invoice: the root element is <%s>, want <%s>", name, tagInvoice)
				}
			}
			s.names = append(s.names, name...)
			s.ends = append(s.ends, len(s.names))
			depth := len(s.ends) - 1
			s.st.start(depth, localName(name))
			if depth == 2 && s.st.inPrice {
				if err := s.currency(rest); err != nil {
					return res, err
				}
			}
		case gosax.EventEnd:
			name, _ := gosax.Name(e.Bytes)
			if len(s.ends) == 0 || !bytes.Equal(name, s.top()) {
				if len(s.ends) == 0 {
					return res, fmt.Errorf("malformed document: unexpected end tag </%s>", name)
				}
				return res, fmt.Errorf("malformed document: element <%s> closed by </%s>", s.top(), name)
			}
			depth := len(s.ends) - 1
			s.ends = s.ends[:depth]
			if depth > 0 {
				s.names = s.names[:s.ends[depth-1]]
			} else {
				s.names = s.names[:0]
			}
			if err := s.st.end(depth); err != nil {
				return res, err
			}
		case gosax.EventText, gosax.EventCData:
			if len(s.ends) == 0 {
				if len(bytes.TrimSpace(e.Bytes)) > 0 {
					return res, errors.New("malformed document: text outside the root element")
				}
				continue
			}
			if s.st.inAmount {
				b := e.Bytes
				if e.Type() == gosax.EventCData {
					if !bytes.HasPrefix(b, []byte("<![CDATA[")) || len(b) < len("<![CDATA[]]>") {
						return res, fmt.Errorf("malformed document: bad CDATA section %.20q", b)
					}
					b = b[len("<![CDATA[") : len(b)-len("]]>")]
				} else if b, err = gosax.Unescape(b); err != nil {
					return res, fmt.Errorf("malformed document: PriceAmount: %w", err)
				}
				s.st.amount = append(s.st.amount, b...)
			}
		}
	}
}

func (s *SAXScanner) top() []byte {
	d := len(s.ends) - 1
	from := 0
	if d > 0 {
		from = s.ends[d-1]
	}
	return s.names[from:s.ends[d]]
}

// currency reads the Currency attribute from a Price start tag's attribute bytes.
func (s *SAXScanner) currency(b []byte) error {
	for len(b) > 0 {
		a, rest, err := gosax.NextAttribute(b)
		if err != nil {
			return fmt.Errorf("malformed document: line item %d: %w", s.st.items, err)
		}
		if len(a.Key) == 0 {
			return nil
		}
		if string(a.Key) == attrCurrency && len(a.Value) >= 2 {
			v, err := gosax.Unescape(a.Value[1 : len(a.Value)-1])
			if err != nil {
				return fmt.Errorf("malformed document: line item %d: Currency: %w", s.st.items, err)
			}
			s.st.currency = append(s.st.currency[:0], v...)
			return nil
		}
		b = rest
	}
	return nil
}

// PullScanner scans documents with the standard library's encoding/xml Decoder (Token: the
// pull-parser baseline, with namespace handling and well-formedness checks). One per goroutine.
type PullScanner struct {
	src bytes.Reader
	st  itemState
}

// NewPullScanner returns a pull scanner.
func NewPullScanner() *PullScanner { return &PullScanner{} }

// Scan reads data from start to end, accessing the Currency and PriceAmount of the first limit
// line items.
func (p *PullScanner) Scan(data []byte, limit int) (ScanResult, error) {
	p.src.Reset(data)
	dec := xml.NewDecoder(&p.src)
	p.st.reset(limit)
	depth, sawRoot := 0, false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if !sawRoot {
				return ScanResult{}, errors.New("malformed document: no root element")
			}
			return ScanResult{Access: p.st.ac.a, LineItems: p.st.items}, nil
		}
		if err != nil {
			return ScanResult{}, fmt.Errorf("malformed document: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if sawRoot {
					return ScanResult{}, errors.New("malformed document: more than one root element")
				}
				sawRoot = true
				if t.Name.Local != tagInvoice {
					return ScanResult{}, fmt.Errorf("not an invoice: the root element is <%s>, want <%s>", t.Name.Local, tagInvoice)
				}
			}
			p.st.start(depth, []byte(t.Name.Local))
			if depth == 2 && p.st.inPrice {
				for _, a := range t.Attr {
					if a.Name.Local == attrCurrency {
						p.st.currency = append(p.st.currency[:0], a.Value...)
					}
				}
			}
			depth++
		case xml.EndElement:
			depth--
			if err := p.st.end(depth); err != nil {
				return ScanResult{}, err
			}
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return ScanResult{}, errors.New("malformed document: text outside the root element")
			}
			if p.st.inAmount {
				p.st.amount = append(p.st.amount, t...)
			}
		}
	}
}
