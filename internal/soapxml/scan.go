package soapxml

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// This file is a small pull tokenizer for XML 1.0 documents held in memory, written for SOAP
// envelopes: it resolves namespaces, matches end tags, decodes the predefined entities and
// character references, and refuses DTDs — so there is no entity expansion of any kind. It
// allocates nothing per token. It is not a validating parser: it checks what affects the
// meaning of a SOAP message and what could hurt the server, and bounds everything (depth,
// attributes, namespace bindings).
//
// encoding/xml's Decoder was measured at several hundred ns per token with an allocation or
// two each; a WSTest envelope for EchoList-100 is ~1,500 tokens, which alone would cost more
// than the whole HTTP exchange. gosax (a fast lexer) was considered, but it leaves names,
// attributes, namespaces, end-tag matching and entity checks to the caller and has an
// out-of-range index on a truncated attribute (`<a x= >`), so a fuzzed, bounds-checked
// tokenizer of our own is both simpler and safer here.

const (
	nsXML    = "http://www.w3.org/XML/1998/namespace"
	nsXMLNS  = "http://www.w3.org/2000/xmlns/"
	maxAttrs = 64 // attributes on one element
	// maxBindings bounds in-scope namespace declarations; lookups scan them, so this also
	// bounds the cost of resolving a name.
	maxBindings = 64
)

type tokKind uint8

const (
	tStart tokKind = iota + 1
	tEnd
	tText
	tEOF
)

// Token is one event: a start tag's name, its resolved namespace and xsi:nil. Byte slices point
// into the document and are valid until the document's buffer is reused.
type Token struct {
	kind  tokKind
	Local []byte // start: the local name
	NS    []byte // start: the resolved namespace URI
	text  []byte // text: raw (undecoded) bytes
	// decode says text holds '&' or '\r' and must go through decodeText; cdata says it came
	// from a CDATA section (no entities, only line ends to normalize).
	decode, cdata bool
	nsid          uint8 // start: class of ns
	Nil           bool  // start: xsi:nil="true"
	mustUnderst   bool  // start: soap:mustUnderstand="1"
	offset        int   // where the token began, for error messages
}

// frame is an open element: where its qualified name is in the document and how many namespace
// bindings were in scope before it. It holds no pointers, so pushing it costs no write barrier.
type frame struct {
	qs, qe int32
	nsMark int32
}

type binding struct {
	prefix, uri []byte
	id          uint8 // nsOther, nsOurs, nsEnvelope: classified once, when declared
}

// Namespace classes, so the decoder's checks compare a byte, not a URI, per element.
const (
	nsNone uint8 = iota
	nsOurs
	nsEnvelope
	nsOther
)

// classify sorts a namespace URI just declared: the document's own namespace (the contract's
// target namespace the Reader was reset with), the SOAP envelope's, none, or another.
func (s *scanner) classify(uri []byte) uint8 {
	if len(uri) > 0 && string(uri) == s.ours {
		return nsOurs
	}
	switch string(uri) {
	case "":
		return nsNone
	case EnvelopeNS:
		return nsEnvelope
	}
	return nsOther
}

type attr struct{ name, value []byte }

// scanner tokenizes one document.
type scanner struct {
	b        []byte
	p        int
	stack    []frame
	ns       []binding
	attrs    []attr
	pending  bool // a self-closing tag's end is due
	rootSeen bool
	maxDepth int
	ours     string // the contract's namespace: elements in it are classed nsOurs
}

// SyntaxError is malformed or refused XML.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("malformed XML at byte %d: %s", e.Offset, e.Msg)
}

func (s *scanner) reset(b []byte, ours string, maxDepth int) {
	// a UTF-8 byte order mark is allowed before the document
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	s.b, s.p = b, 0
	s.stack = s.stack[:0]
	s.ns = s.ns[:0]
	s.pending, s.rootSeen = false, false
	s.maxDepth = maxDepth
	s.ours = ours
}

func (s *scanner) errf(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isSpaceOnly(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// nameByte reports which bytes may appear in a name: ASCII letters, digits, '_', '-', '.', ':'
// and any byte of a multi-byte UTF-8 sequence (non-ASCII name characters are not checked
// individually).
var nameByte = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c >= 0x80:
			t[c] = 2 // may start a name
		case c >= '0' && c <= '9', c == '-', c == '.', c == ':':
			t[c] = 1
		}
	}
	return
}()

// name reads a QName at s.p and returns it and the colon's index in it (-1 for none); it
// checks the characters and the colon.
func (s *scanner) name() ([]byte, int, error) {
	start := s.p
	b := s.b
	if s.p >= len(b) || nameByte[b[s.p]] != 2 {
		return nil, -1, s.errf(start, "expected a name")
	}
	colon := -1
	high := false
	p := s.p
	for ; p < len(b); p++ {
		c := b[p]
		if nameByte[c] == 0 {
			break
		}
		if c == ':' {
			if colon >= 0 {
				return nil, -1, s.errf(start, "name with two colons")
			}
			colon = p - start
		}
		high = high || c >= 0x80
	}
	s.p = p
	n := b[start:p]
	if colon >= 0 && (colon == 0 || colon == len(n)-1 || nameByte[n[colon+1]] != 2) {
		return nil, -1, s.errf(start, "bad qualified name %q", Clip(n))
	}
	if high && !utf8.Valid(n) {
		return nil, -1, s.errf(start, "name is not valid UTF-8")
	}
	return n, colon, nil
}

func splitQName(q []byte) (prefix, local []byte) {
	if i := bytes.IndexByte(q, ':'); i >= 0 {
		return q[:i], q[i+1:]
	}
	return nil, q
}

func (s *scanner) lookup(prefix []byte) ([]byte, uint8, bool) {
	for i := len(s.ns) - 1; i >= 0; i-- {
		if bytes.Equal(s.ns[i].prefix, prefix) {
			return s.ns[i].uri, s.ns[i].id, true
		}
	}
	switch string(prefix) {
	case "":
		return nil, nsNone, true // no default namespace
	case "xml":
		return []byte(nsXML), nsOther, true
	}
	return nil, nsNone, false
}

func (s *scanner) skipSpace() {
	for s.p < len(s.b) && isSpace(s.b[s.p]) {
		s.p++
	}
}

// next returns the next token. Comments and the XML declaration are consumed silently; other
// processing instructions are refused.
func (s *scanner) next(t *Token) error {
	if s.pending {
		s.pending = false
		s.pop(t, s.p)
		return nil
	}
	for {
		if s.p >= len(s.b) {
			if len(s.stack) > 0 {
				f := s.stack[len(s.stack)-1]
				return s.errf(s.p, "document ends inside <%s>", Clip(s.b[f.qs:f.qe]))
			}
			if !s.rootSeen {
				return s.errf(s.p, "no root element (empty document)")
			}
			*t = Token{kind: tEOF, offset: s.p}
			return nil
		}
		if s.b[s.p] != '<' {
			start := s.p
			end := bytes.IndexByte(s.b[s.p:], '<')
			if end < 0 {
				end = len(s.b)
			} else {
				end += s.p
			}
			s.p = end
			txt := s.b[start:end]
			if len(s.stack) == 0 {
				if !isSpaceOnly(txt) {
					if s.rootSeen {
						return s.errf(start, "text after the root element")
					}
					return s.errf(start, "text outside the root element")
				}
				continue
			}
			t.kind, t.text, t.offset, t.cdata = tText, txt, start, false
			t.decode = bytes.IndexByte(txt, '&') >= 0 || bytes.IndexByte(txt, '\r') >= 0
			return nil
		}
		if s.p+1 >= len(s.b) {
			return s.errf(s.p, "document ends inside markup")
		}
		switch s.b[s.p+1] {
		case '?':
			if err := s.procInst(); err != nil {
				return err
			}
		case '!':
			ok, err := s.bang(t)
			if err != nil {
				return err
			}
			if ok {
				return nil
			}
		case '/':
			return s.endTag(t)
		default:
			return s.startTag(t)
		}
	}
}

func (s *scanner) procInst() error {
	start := s.p
	s.p += 2
	target, _, err := s.name()
	if err != nil {
		return err
	}
	end := bytes.Index(s.b[s.p:], []byte("?>"))
	if end < 0 {
		return s.errf(start, "unterminated processing instruction")
	}
	body := s.b[s.p : s.p+end]
	s.p += end + 2
	if len(target) != 3 || (target[0]|0x20) != 'x' || (target[1]|0x20) != 'm' || (target[2]|0x20) != 'l' {
		// SOAP 1.1 section 3: a SOAP message must not contain processing instructions.
		return s.errf(start, "processing instructions are not allowed in a SOAP message")
	}
	if start != 0 {
		return s.errf(start, "XML declaration not at the start of the document")
	}
	if enc := pseudoAttr(body, "encoding"); enc != nil && !IsUTF8Name(enc) {
		return s.errf(start, "unsupported encoding %q: send UTF-8", Clip(enc))
	}
	return nil
}

// pseudoAttr finds name="v" or name='v' in an XML declaration.
func pseudoAttr(b []byte, name string) []byte {
	i := bytes.Index(b, []byte(name))
	if i < 0 {
		return nil
	}
	b = bytes.TrimLeft(b[i+len(name):], " \t\r\n")
	if len(b) == 0 || b[0] != '=' {
		return nil
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	if len(b) == 0 || (b[0] != '"' && b[0] != '\'') {
		return nil
	}
	q := b[0]
	j := bytes.IndexByte(b[1:], q)
	if j < 0 {
		return nil
	}
	return b[1 : 1+j]
}

// IsUTF8Name reports whether an encoding or charset name means UTF-8 (or its ASCII subset).
func IsUTF8Name(enc []byte) bool {
	for _, name := range [...]string{"utf-8", "utf8", "us-ascii", "ascii"} {
		if bytes.EqualFold(enc, []byte(name)) { // ToLower would allocate on every request
			return true
		}
	}
	return false
}

// bang handles <!-- -->, <![CDATA[ ]]> (returned as text) and refuses <!DOCTYPE and the rest.
func (s *scanner) bang(t *Token) (bool, error) {
	start := s.p
	rest := s.b[s.p:]
	switch {
	case bytes.HasPrefix(rest, []byte("<!--")):
		end := bytes.Index(rest[4:], []byte("-->"))
		if end < 0 {
			return false, s.errf(start, "unterminated comment")
		}
		s.p += 4 + end + 3
		return false, nil
	case bytes.HasPrefix(rest, []byte("<![CDATA[")):
		if len(s.stack) == 0 {
			return false, s.errf(start, "CDATA outside the root element")
		}
		end := bytes.Index(rest[9:], []byte("]]>"))
		if end < 0 {
			return false, s.errf(start, "unterminated CDATA section")
		}
		txt := rest[9 : 9+end]
		s.p += 9 + end + 3
		*t = Token{kind: tText, text: txt, cdata: true, decode: bytes.IndexByte(txt, '\r') >= 0, offset: start}
		return true, nil
	case bytes.HasPrefix(rest, []byte("<!DOCTYPE")):
		return false, s.errf(start, "DOCTYPE declarations are not allowed (no DTDs, no entity definitions)")
	}
	return false, s.errf(start, "unexpected markup declaration (DTD syntax is not allowed)")
}

func (s *scanner) endTag(t *Token) error {
	start := s.p
	s.p += 2
	q, _, err := s.name()
	if err != nil {
		return err
	}
	s.skipSpace()
	if s.p >= len(s.b) || s.b[s.p] != '>' {
		return s.errf(start, "end tag </%s> is not closed with '>'", Clip(q))
	}
	s.p++
	if len(s.stack) == 0 {
		return s.errf(start, "end tag </%s> without a start tag", Clip(q))
	}
	if f := s.stack[len(s.stack)-1]; !bytes.Equal(s.b[f.qs:f.qe], q) {
		return s.errf(start, "end tag </%s> does not match <%s>", Clip(q), Clip(s.b[f.qs:f.qe]))
	}
	s.pop(t, start)
	return nil
}

// pop closes the innermost element. End tokens carry no name: the decoder knows what it opened.
func (s *scanner) pop(t *Token, off int) {
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.ns = s.ns[:f.nsMark]
	t.kind, t.offset = tEnd, off
}

// startTag scans a start tag into t: its attributes, the namespaces it declares (in scope until
// its end tag), its name resolved against them, and the two attributes SOAP gives meaning to.
func (s *scanner) startTag(t *Token) error {
	start := s.p
	if s.rootSeen && len(s.stack) == 0 {
		return s.errf(start, "content after the root element")
	}
	s.p++
	qs := s.p
	q, colon, err := s.name()
	if err != nil {
		return err
	}
	selfClose, err := s.attributes(start, q)
	if err != nil {
		return err
	}
	if len(s.stack) >= s.maxDepth {
		return s.errf(start, "elements nested deeper than %d", s.maxDepth)
	}
	mark := len(s.ns)
	if err := s.declare(start); err != nil {
		return err
	}
	var prefix, local []byte = nil, q
	if colon >= 0 {
		prefix, local = q[:colon], q[colon+1:]
	}
	ns, nsid, ok := s.lookup(prefix)
	if !ok {
		return s.errf(start, "undeclared namespace prefix %q in <%s>", prefix, Clip(q))
	}
	// field by field: a whole-struct store of a pointerful token costs a typed copy
	t.kind, t.Local, t.NS, t.nsid, t.offset = tStart, local, ns, nsid, start
	t.text, t.decode, t.cdata, t.Nil, t.mustUnderst = nil, false, false, false, false
	if err := s.markers(t, start); err != nil {
		return err
	}
	s.stack = append(s.stack, frame{qs: int32(qs), qe: int32(qs + len(q)), nsMark: int32(mark)})
	s.rootSeen = true
	s.pending = selfClose
	return nil
}

// attributes scans the attributes of the tag named q, begun at start, into s.attrs, up to its
// '>' or '/>' (selfClose): each name, '=', and a quoted value without '<', at most maxAttrs.
func (s *scanner) attributes(start int, q []byte) (selfClose bool, err error) {
	s.attrs = s.attrs[:0]
	for {
		hadSpace := s.p < len(s.b) && isSpace(s.b[s.p])
		s.skipSpace()
		if s.p >= len(s.b) {
			return false, s.errf(start, "document ends inside the tag <%s", Clip(q))
		}
		if s.b[s.p] == '>' {
			s.p++
			return false, nil
		}
		if s.b[s.p] == '/' {
			if s.p+1 >= len(s.b) || s.b[s.p+1] != '>' {
				return false, s.errf(s.p, "expected '/>'")
			}
			s.p += 2
			return true, nil
		}
		if !hadSpace {
			return false, s.errf(s.p, "expected space before an attribute in <%s", Clip(q))
		}
		an, _, err := s.name()
		if err != nil {
			return false, err
		}
		s.skipSpace()
		if s.p >= len(s.b) || s.b[s.p] != '=' {
			return false, s.errf(s.p, "attribute %s has no value", Clip(an))
		}
		s.p++
		s.skipSpace()
		if s.p >= len(s.b) || (s.b[s.p] != '"' && s.b[s.p] != '\'') {
			return false, s.errf(s.p, "attribute %s: value must be quoted", Clip(an))
		}
		qc := s.b[s.p]
		s.p++
		end := bytes.IndexByte(s.b[s.p:], qc)
		if end < 0 {
			return false, s.errf(s.p, "unterminated attribute value")
		}
		v := s.b[s.p : s.p+end]
		if bytes.IndexByte(v, '<') >= 0 {
			return false, s.errf(s.p, "'<' in an attribute value")
		}
		s.p += end + 1
		if len(s.attrs) >= maxAttrs {
			return false, s.errf(start, "more than %d attributes on one element", maxAttrs)
		}
		s.attrs = append(s.attrs, attr{an, v})
	}
}

// declare binds the namespaces the tag's attributes declare, before its own name and attributes
// are resolved, since they apply to both; at most maxBindings in scope.
func (s *scanner) declare(start int) error {
	for _, a := range s.attrs {
		var prefix []byte
		switch {
		case bytes.Equal(a.name, []byte("xmlns")):
			prefix = []byte{}
		case bytes.HasPrefix(a.name, []byte("xmlns:")):
			prefix = a.name[6:]
			if len(a.value) == 0 {
				return s.errf(start, "prefix %s bound to an empty namespace", Clip(prefix))
			}
			if string(prefix) == "xmlns" || string(prefix) == "xml" {
				return s.errf(start, "reserved prefix %s redeclared", prefix)
			}
		default:
			continue
		}
		if len(s.ns) >= maxBindings {
			return s.errf(start, "more than %d namespace declarations in scope", maxBindings)
		}
		uri, err := attrValue(a.value)
		if err != nil {
			return s.errf(start, "namespace %s: %v", Clip(a.value), err)
		}
		s.ns = append(s.ns, binding{prefix, uri, s.classify(uri)})
	}
	return nil
}

// markers reads the attributes SOAP gives meaning to — xsi:nil and the envelope's
// mustUnderstand — into t, every prefixed attribute's namespace declared or an error.
func (s *scanner) markers(t *Token, start int) error {
	for _, a := range s.attrs {
		ap, al := splitQName(a.name)
		if len(ap) == 0 || string(ap) == "xmlns" {
			continue
		}
		auri, _, ok := s.lookup(ap)
		if !ok {
			return s.errf(start, "undeclared namespace prefix %q on attribute %s", ap, Clip(a.name))
		}
		switch {
		case string(al) == "nil" && string(auri) == nsXSI:
			t.Nil = string(a.value) == "true" || string(a.value) == "1"
		case string(al) == "mustUnderstand" && string(auri) == EnvelopeNS:
			t.mustUnderst = string(a.value) == "1" || string(a.value) == "true"
		}
	}
	return nil
}

// attrValue decodes an attribute value's references (rarely present: a fresh slice then).
func attrValue(v []byte) ([]byte, error) {
	if bytes.IndexByte(v, '&') < 0 {
		return v, nil
	}
	return decodeText(nil, v, false)
}

var errBadChar = errors.New("character not allowed in XML")

// IsXMLChar reports whether r is a Char of XML 1.0: what a document may carry at all.
func IsXMLChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// decodeText appends src to dst with line ends normalized (\r\n and \r become \n) and, unless
// cdata, the five predefined entities and character references replaced. Any other entity is
// an error: there is no DTD to define one.
func decodeText(dst, src []byte, cdata bool) ([]byte, error) {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\r':
			dst = append(dst, '\n')
			i++
			if i < len(src) && src[i] == '\n' {
				i++
			}
		case c == '&' && !cdata:
			end := bytes.IndexByte(src[i:], ';')
			if end < 0 || end > 12 {
				return nil, fmt.Errorf("bad entity reference near %q", Clip(src[i:min(len(src), i+12)]))
			}
			ref := src[i+1 : i+end]
			i += end + 1
			switch string(ref) {
			case "lt":
				dst = append(dst, '<')
			case "gt":
				dst = append(dst, '>')
			case "amp":
				dst = append(dst, '&')
			case "apos":
				dst = append(dst, '\'')
			case "quot":
				dst = append(dst, '"')
			default:
				if len(ref) < 2 || ref[0] != '#' {
					return nil, fmt.Errorf("undefined entity &%s; (only the five predefined entities and character references are allowed)",
						Clip(ref))
				}
				r, ok := charRef(ref[1:])
				if !ok || !IsXMLChar(r) {
					return nil, fmt.Errorf("bad character reference &%s;", Clip(ref))
				}
				dst = utf8.AppendRune(dst, r)
			}
		default:
			j := i + 1
			for j < len(src) && src[j] != '&' && src[j] != '\r' {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j
		}
	}
	return dst, nil
}

func charRef(b []byte) (rune, bool) {
	base := rune(10)
	if len(b) > 0 && b[0] == 'x' {
		base, b = 16, b[1:]
	}
	if len(b) == 0 || len(b) > 8 {
		return 0, false
	}
	var r rune
	for _, c := range b {
		var d rune
		switch {
		case c >= '0' && c <= '9':
			d = rune(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = rune(c-'A') + 10
		default:
			return 0, false
		}
		r = r*base + d
		if r > 0x10FFFF {
			return 0, false
		}
	}
	return r, true
}

// Clip shortens b for an error message (see Shorten).
func Clip(b []byte) string { return Shorten(string(b[:min(len(b), 41)]), 40) }

// leafText is the fast path for the commonest shape in a SOAP body, <x>text</x>: called right
// after a start token, it takes the text and the matching end tag in one step when the text has
// no markup, entity or CR and the end tag follows at once. Otherwise it changes nothing and
// reports false, and the caller reads tokens as usual.
func (s *scanner) leafText() ([]byte, bool) {
	if s.pending { // <x/>
		s.pending = false
		f := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		s.ns = s.ns[:f.nsMark]
		return nil, true
	}
	b := s.b
	i := bytes.IndexByte(b[s.p:], '<')
	if i < 0 {
		return nil, false
	}
	end := s.p + i
	f := s.stack[len(s.stack)-1]
	q := b[f.qs:f.qe]
	j := end + 2 + len(q)
	if j >= len(b) || b[end+1] != '/' || b[j] != '>' || !bytes.Equal(b[end+2:j], q) {
		return nil, false
	}
	txt := b[s.p:end]
	if bytes.IndexByte(txt, '&') >= 0 || bytes.IndexByte(txt, '\r') >= 0 {
		return nil, false
	}
	s.p = j + 1
	s.stack = s.stack[:len(s.stack)-1]
	s.ns = s.ns[:f.nsMark]
	return txt, true
}
