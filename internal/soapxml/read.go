package soapxml

import (
	"fmt"
	"unicode/utf8"
)

// Limits bound what one document may make a Reader spend. Zero fields mean no limit, except
// Depth.
type Limits struct {
	Depth  int // element nesting, the envelope's own levels included
	Text   int // bytes of one element's text
	Repeat int // children of one record (Record)
}

// Reader reads one SOAP document held in memory: the envelope (Envelope), records of named
// fields (Record), and simple values (Text, String). Elements in the contract's namespace ns,
// or in none (some hand-written clients forget elementFormDefault), are the contract's own. A
// Reader is reused: Reset before each document, Release before pooling it.
type Reader struct {
	s       scanner
	lim     Limits
	scratch []byte
	// toks holds the Token of each level of Record (and Envelope, ReadFault) under way, reused
	// from document to document: their callbacks are func values, and a Token on the stack
	// whose address is passed to one escapes to the heap, an allocation per record.
	toks  []*Token
	level int
}

// push takes the Token of the next level of callbacks; pop gives it back.
func (r *Reader) push() *Token {
	if r.level == len(r.toks) {
		r.toks = append(r.toks, new(Token))
	}
	t := r.toks[r.level]
	r.level++
	return t
}

func (r *Reader) pop() { r.level-- }

// Reset starts reading doc, a document whose contract elements are in namespace ns.
func (r *Reader) Reset(doc []byte, ns string, lim Limits) {
	r.lim = lim
	r.level = 0
	r.s.reset(doc, ns, lim.Depth)
}

// Release drops what refers to the last document — the document itself, and the namespace
// bindings and attributes that point into it (cleared to their capacity: entries past the
// length are stale but still reachable) — so that a pooled Reader does not pin a request body.
func (r *Reader) Release() {
	s := &r.s
	s.b = nil
	clear(s.ns[:cap(s.ns)])
	s.ns = s.ns[:0]
	clear(s.attrs[:cap(s.attrs)])
	s.attrs = s.attrs[:0]
	clear(s.stack)
	if cap(s.stack) > 1024 { // do not keep a hostile request's stack around
		s.stack = nil
	}
	if cap(r.scratch) > 64<<10 {
		r.scratch = nil
	}
	for _, t := range r.toks {
		*t = Token{}
	}
	if len(r.toks) > 64 {
		r.toks = nil
	}
}

// Ours reports whether an element is one of the contract's: in its namespace or unqualified.
func (t *Token) Ours() bool { return t.nsid <= nsOurs }

// Unexpected is the fault for a child element that is not one of parent's.
func Unexpected(t *Token, parent string) error {
	if len(t.NS) > 0 && t.nsid != nsOurs {
		return ClientFault("unexpected element {%s}%s in <%s>", Clip(t.NS), Clip(t.Local), parent)
	}
	return ClientFault("unexpected element <%s> in <%s>", Clip(t.Local), parent)
}

// Child reads up to the next child element of the element being read and returns true with its
// start in t, or false having read that element's end. Whitespace and comments between elements
// are skipped; other text is an error (the element holds elements).
func (r *Reader) Child(parent string, t *Token) (bool, error) {
	for {
		if err := r.s.next(t); err != nil {
			return false, err
		}
		switch t.kind {
		case tStart:
			return true, nil
		case tEnd:
			return false, nil
		case tText:
			if t.cdata || !isSpaceOnly(t.text) {
				return false, ClientFault("unexpected text in <%s> (it holds elements)", parent)
			}
		case tEOF:
			return false, ClientFault("document ends inside <%s>", parent)
		}
	}
}

// Text reads the text content of the element whose start (named el) was just read, through its
// end tag. The result points into the document or a scratch buffer: it is valid until the next
// call.
func (r *Reader) Text(el []byte) ([]byte, error) {
	if b, ok := r.s.leafText(); ok {
		if r.lim.Text > 0 && len(b) > r.lim.Text {
			return nil, r.tooLong(el)
		}
		return b, nil
	}
	var single []byte
	n := 0
	r.scratch = r.scratch[:0]
	var t Token
	for {
		if err := r.s.next(&t); err != nil {
			return nil, err
		}
		switch t.kind {
		case tEnd:
			if n == 1 {
				return single, nil
			}
			return r.scratch, nil
		case tStart:
			return nil, ClientFault("<%s> must hold text, not the element <%s>", Clip(el), Clip(t.Local))
		case tText:
			if n == 0 && !t.decode {
				single = t.text
				n = 1
			} else {
				if n == 1 {
					r.scratch = append(r.scratch, single...)
				}
				n = 2
				if t.decode {
					var err error
					r.scratch, err = decodeText(r.scratch, t.text, t.cdata)
					if err != nil {
						return nil, &SyntaxError{Offset: t.offset, Msg: err.Error()}
					}
				} else {
					r.scratch = append(r.scratch, t.text...)
				}
			}
			if r.lim.Text > 0 && len(single)+len(r.scratch) > r.lim.Text {
				return nil, r.tooLong(el)
			}
		}
	}
}

func (r *Reader) tooLong(el []byte) error {
	return ClientFault("<%s> is longer than %d bytes", Clip(el), r.lim.Text)
}

// String reads the element's text (see Text) as a string.
func (r *Reader) String(t *Token) (string, error) {
	b, err := r.Text(t.Local)
	if err != nil {
		return "", err
	}
	return String(b, t.Local)
}

// String converts element text to a string, refusing invalid UTF-8 and what XML 1.0 cannot
// carry: control characters and the noncharacters U+FFFE and U+FFFF (valid UTF-8, but not XML
// Chars). It applies AppendText's rule (IsXMLChar), so whatever is accepted is written back
// exactly; AppendText would turn any of them into U+FFFD.
func String(b, el []byte) (string, error) {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return "", ClientFault("<%s>: control character 0x%02x is not allowed in XML", Clip(el), c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return "", ClientFault("<%s>: text is not valid UTF-8", Clip(el))
		}
		if !IsXMLChar(r) {
			return "", ClientFault("<%s>: character U+%04X is not allowed in XML", Clip(el), r)
		}
		i += n
	}
	return string(b), nil
}

// Skip consumes the rest of the element whose start was just read.
func (r *Reader) Skip() error {
	depth := 1
	var t Token
	for depth > 0 {
		if err := r.s.next(&t); err != nil {
			return err
		}
		switch t.kind {
		case tStart:
			depth++
		case tEnd:
			depth--
		}
	}
	return nil
}

// Field is one child element of a record: its local name, its XSD type (for a WSDL) and how
// often it may occur.
type Field struct {
	Name     string
	XSD      string // "xs:string", "tns:Money", ...
	Optional bool   // minOccurs=0
	Many     bool   // maxOccurs=unbounded
}

// Record reads the children of the element parent (its start just read) as the fields fs, in
// any order, through its end: each child must be one of fs and the contract's (see Ours),
// appear at most once unless Many, and every field not Optional must appear; at most
// Limits.Repeat children in all. fn reads the value of fs[i], whose start is t, to its end.
// This is the one loop every record of both services goes through.
func (r *Reader) Record(parent string, fs []Field, fn func(i int, t *Token) error) error {
	t := r.push()
	err := r.record(parent, fs, t, fn)
	r.pop()
	return err
}

func (r *Reader) record(parent string, fs []Field, t *Token, fn func(i int, t *Token) error) error {
	var seen uint64
	n, next := 0, 0
	for {
		ok, err := r.Child(parent, t)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		i := fieldIndex(fs, t, next)
		if i < 0 {
			return Unexpected(t, parent)
		}
		if seen&(1<<i) != 0 && !fs[i].Many {
			return ClientFault("element <%s> appears more than once in <%s>", fs[i].Name, parent)
		}
		seen |= 1 << i
		if next = i; !fs[i].Many {
			next++
		}
		if n++; r.lim.Repeat > 0 && n > r.lim.Repeat {
			return ClientFault("more than %d elements in <%s>", r.lim.Repeat, parent)
		}
		if err := fn(i, t); err != nil {
			return err
		}
	}
	for i := range fs {
		if !fs[i].Optional && seen&(1<<i) == 0 {
			return ClientFault("missing element <%s> in <%s>", fs[i].Name, parent)
		}
	}
	return nil
}

// fieldIndex is the index in fs of the contract's element t, or -1; fs[hint] is tried first
// (the field expected next: writers keep the xs:sequence order). This is the hot path of every
// record.
func fieldIndex(fs []Field, t *Token, hint int) int {
	if !t.Ours() {
		return -1
	}
	if hint < len(fs) && is(t.Local, fs[hint].Name) {
		return hint
	}
	for i := range fs {
		if is(t.Local, fs[i].Name) {
			return i
		}
	}
	return -1
}

// is compares byte by byte: names are short, and this inlines where == calls memequal.
func is(local []byte, name string) bool {
	if len(local) != len(name) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if local[i] != name[i] {
			return false
		}
	}
	return true
}

// Envelope reads <Envelope>[<Header>…]<Body>one element</Body>…</Envelope> and nothing after,
// and calls body for the Body's one element (its start in t; body must read it to its end).
// expect says what that element should be, for the fault about an empty Body. A SOAP 1.2
// envelope is a VersionMismatch fault, a header block marked mustUnderstand a MustUnderstand
// fault (these services understand no header), qualified elements after the Body are skipped
// as SOAP 1.1 allows.
func (r *Reader) Envelope(expect string, body func(t *Token) error) error {
	var t Token
	if err := r.s.next(&t); err != nil {
		return err
	}
	if t.kind != tStart || string(t.Local) != "Envelope" || t.nsid != nsEnvelope {
		if string(t.Local) == "Envelope" && string(t.NS) == Envelope12NS {
			return &Fault{Code: CodeVersionMismatch, String: "SOAP 1.2 envelope: this endpoint speaks SOAP 1.1 (namespace " + EnvelopeNS + ")"}
		}
		if string(t.Local) == "Envelope" {
			return &Fault{Code: CodeVersionMismatch, String: fmt.Sprintf("Envelope in namespace %q: expected %s", Clip(t.NS), EnvelopeNS)}
		}
		return ClientFault("the document is not a SOAP envelope: root element is {%s}%s", Clip(t.NS), Clip(t.Local))
	}
	sawHeader, sawBody := false, false
	for {
		ok, err := r.Child("Envelope", &t)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch {
		case t.nsid == nsEnvelope && string(t.Local) == "Header" && !sawHeader && !sawBody:
			sawHeader = true
			if err := r.header(); err != nil {
				return err
			}
		case t.nsid == nsEnvelope && string(t.Local) == "Body" && !sawBody:
			sawBody = true
			if err := r.body(expect, body); err != nil {
				return err
			}
		case sawBody && len(t.NS) > 0: // SOAP 1.1 allows qualified elements after the Body
			if err := r.Skip(); err != nil {
				return err
			}
		default:
			return ClientFault("unexpected element {%s}%s in soap:Envelope", Clip(t.NS), Clip(t.Local))
		}
	}
	if !sawBody {
		return ClientFault("soap:Envelope has no soap:Body")
	}
	if err := r.s.next(&t); err != nil {
		return err
	}
	if t.kind != tEOF {
		return ClientFault("content after soap:Envelope")
	}
	return nil
}

// header skips header entries; one that must be understood cannot be (the services define
// none), so it is a MustUnderstand fault as SOAP 1.1 requires.
func (r *Reader) header() error {
	var t Token
	for {
		ok, err := r.Child("Header", &t)
		if err != nil || !ok {
			return err
		}
		if t.mustUnderst {
			return &Fault{Code: CodeMustUnderstand,
				String: fmt.Sprintf("header {%s}%s is marked mustUnderstand and this service does not know it", Clip(t.NS), Clip(t.Local))}
		}
		if err := r.Skip(); err != nil {
			return err
		}
	}
}

func (r *Reader) body(expect string, fn func(t *Token) error) error {
	seen := false
	t := r.push()
	defer r.pop()
	for {
		ok, err := r.Child("Body", t)
		if err != nil {
			return err
		}
		if !ok {
			if !seen {
				return ClientFault("empty soap:Body: expected %s", expect)
			}
			return nil
		}
		if seen {
			return ClientFault("soap:Body holds more than one element (<%s>); send one operation per request", Clip(t.Local))
		}
		seen = true
		if err := fn(t); err != nil {
			return err
		}
	}
}

// IsFault reports whether the Body's element t is a soap:Fault.
func (t *Token) IsFault() bool { return t.nsid == nsEnvelope && string(t.Local) == "Fault" }

// ReadFault reads a soap:Fault (its start just read) through its end: the local part of
// faultcode, faultstring, and the children of detail, each handed to detail (nil skips them).
// faultactor and anything else are skipped, as a client should.
func (r *Reader) ReadFault(detail func(t *Token) error) (*Fault, error) {
	f := &Fault{}
	t := r.push()
	defer r.pop()
	for {
		ok, err := r.Child("Fault", t)
		if err != nil {
			return nil, err
		}
		if !ok {
			return f, nil
		}
		switch string(t.Local) {
		case "faultcode":
			b, err := r.Text(t.Local)
			if err != nil {
				return nil, err
			}
			_, local := splitQName(trimSpace(b)) // a QName: soap:Client
			f.Code = string(local)
		case "faultstring":
			if f.String, err = r.String(t); err != nil {
				return nil, err
			}
		case "detail":
			if detail == nil {
				err = r.Skip()
				break
			}
			for {
				ok, err := r.Child("detail", t)
				if err != nil {
					return nil, err
				}
				if !ok {
					break
				}
				if err := detail(t); err != nil {
					return nil, err
				}
			}
		default:
			err = r.Skip()
		}
		if err != nil {
			return nil, err
		}
	}
}

// TrimSpace trims XML white space from both ends of b.
func TrimSpace(b []byte) []byte { return trimSpace(b) }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// Shorten cuts s to at most n bytes, at a character boundary, marking the cut with "…": for
// quoting what a stranger sent in a message.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
