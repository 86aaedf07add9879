package soap

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tradebench/tradebench/trade"
)

// Namespaces of the contract.
const (
	// Namespace is the target namespace of the trade service's elements (elementFormDefault
	// qualified: every element of a message is in it).
	Namespace = "urn:tradebench:trade:v1"
	// EnvelopeNS is SOAP 1.1's envelope namespace.
	EnvelopeNS = "http://schemas.xmlsoap.org/soap/envelope/"
	soap12NS   = "http://www.w3.org/2003/05/soap-envelope"
)

// Decoder limits: far above any legitimate message, low enough that hostile input costs little.
const (
	maxDepth  = 32       // Envelope/Body/op/marketSummary/topGainers/quote/field is 7
	maxText   = 64 << 10 // one field's text
	maxRepeat = 10000    // repeated elements of one name (e.g. symbols, orders)
)

// ---- writing: append-based, no reflection ----

// appendText appends s as XML character data. Characters XML 1.0 cannot carry (most control
// characters, invalid UTF-8) become U+FFFD, as encoding/xml does; CR is escaped so it survives
// the parser's line-end normalisation.
func appendText(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '&' && c != '<' && c != '>' {
			i++
			continue
		}
		var esc string
		width := 1
		switch {
		case c == '&':
			esc = "&amp;"
		case c == '<':
			esc = "&lt;"
		case c == '>':
			esc = "&gt;"
		case c == '\r':
			esc = "&#xD;"
		case c == '\n' || c == '\t':
			i++
			continue
		case c < 0x20:
			esc = "\uFFFD"
		default:
			r, w := utf8.DecodeRuneInString(s[i:])
			width = w
			if (r == utf8.RuneError && w == 1) || !isXMLChar(r) {
				esc = "\uFFFD"
			} else {
				i += w
				continue
			}
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		i += width
		last = i
	}
	return append(b, s[last:]...)
}

func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

func appendStart(b []byte, name string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	return append(b, '>')
}

func appendEnd(b []byte, name string) []byte {
	b = append(b, '<', '/')
	b = append(b, name...)
	return append(b, '>')
}

func appendString(b []byte, name, v string) []byte {
	b = appendStart(b, name)
	b = appendText(b, v)
	return appendEnd(b, name)
}

func appendInt(b []byte, name string, v int64) []byte {
	b = appendStart(b, name)
	b = strconv.AppendInt(b, v, 10)
	return appendEnd(b, name)
}

// appendMoney writes the exact decimal form with two places, e.g. -12.05.
func appendMoney(b []byte, name string, m trade.Money) []byte {
	b = appendStart(b, name)
	v := int64(m)
	if v < 0 {
		b = append(b, '-')
		if v == -1<<63 { // cannot negate; Money's own formatting handles it
			b = append(b, trade.Money(v).String()[1:]...)
			return appendEnd(b, name)
		}
		v = -v
	}
	b = strconv.AppendInt(b, v/100, 10)
	f := v % 100
	b = append(b, '.', byte('0'+f/10), byte('0'+f%10))
	return appendEnd(b, name)
}

// appendTime writes an xs:dateTime; a zero time is omitted (the elements are minOccurs=0).
func appendTime(b []byte, name string, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	b = appendStart(b, name)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return appendEnd(b, name)
}

// ---- reading: a bounded cursor over encoding/xml's tokenizer ----

// cursor walks a document element by element. It refuses DTDs, processing instructions other
// than the XML declaration, text in element-only content, nesting deeper than maxDepth and
// fields longer than maxText, so memory stays bounded whatever arrives.
type cursor struct {
	d     *xml.Decoder
	depth int
}

func newCursor(doc []byte) *cursor {
	d := xml.NewDecoder(bytes.NewReader(doc)) // a ByteReader: no extra buffering
	d.Strict = true
	return &cursor{d: d}
}

// errMalformed marks input the peer got wrong (a Client fault, not a Server one).
type errMalformed struct{ msg string }

func (e *errMalformed) Error() string { return e.msg }

func malformed(format string, args ...any) error {
	return &errMalformed{fmt.Sprintf(format, args...)}
}

func (c *cursor) token() (xml.Token, error) {
	t, err := c.d.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, malformed("unexpected end of the XML document")
		}
		return nil, malformed("malformed XML: %s", shorten(err.Error(), 200))
	}
	switch t := t.(type) {
	case xml.StartElement:
		c.depth++
		if c.depth > maxDepth {
			return nil, malformed("XML nested deeper than %d elements", maxDepth)
		}
	case xml.EndElement:
		c.depth--
	case xml.Directive:
		return nil, malformed("DTDs and other directives are not allowed in a SOAP message")
	case xml.ProcInst:
		if t.Target != "xml" || c.depth > 0 {
			return nil, malformed("processing instructions are not allowed in a SOAP message")
		}
	}
	return t, nil
}

// child advances to the next child element of the current element; ok is false when it met
// (and consumed) the current element's end instead.
func (c *cursor) child() (se xml.StartElement, ok bool, err error) {
	for {
		t, err := c.token()
		if err != nil {
			return se, false, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			return t, true, nil
		case xml.EndElement:
			return se, false, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return se, false, malformed("unexpected text %q between elements", shorten(string(t), 40))
			}
		}
	}
}

// text reads the simple content of the element just started, through its end.
func (c *cursor) text() (string, error) {
	var s string
	var buf []byte
	pieces := 0
	for {
		t, err := c.token()
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.CharData:
			// Usually one piece: convert directly; comments or CDATA may split the text.
			switch pieces {
			case 0:
				s = string(t)
			case 1:
				buf = append([]byte(s), t...)
			default:
				buf = append(buf, t...)
			}
			pieces++
			if n := len(s); pieces > 1 && len(buf) > maxText || n > maxText {
				return "", malformed("a field is longer than %d bytes", maxText)
			}
		case xml.StartElement:
			return "", malformed("element <%s> is not allowed inside a simple value", shorten(t.Name.Local, 64))
		case xml.EndElement:
			if pieces > 1 {
				return string(buf), nil
			}
			return s, nil
		}
	}
}

// skip consumes the rest of the element just started.
func (c *cursor) skip() error {
	for depth := 1; depth > 0; {
		t, err := c.token()
		if err != nil {
			return err
		}
		switch t.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// end checks that nothing but whitespace and comments follows the document element.
func (c *cursor) end() error {
	for {
		t, err := c.d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return malformed("malformed XML after the envelope: %s", shorten(err.Error(), 200))
		}
		switch t := t.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return malformed("text after the envelope")
			}
		case xml.Comment:
		default:
			return malformed("content after the envelope")
		}
	}
}

// field is one element of a record: its local name, its XSD type (for the WSDL) and occurrence.
type field struct {
	name     string
	xsd      string // "xs:string", "tns:Money", "tns:Quote"...
	optional bool   // minOccurs=0
	many     bool   // maxOccurs=unbounded
}

// record reads the children of the current element as the fields fs, in any order: each must
// be one of fs (in the contract namespace, or unqualified for lenient peers), appear at most
// once unless many, and every required one must appear. fn reads the value of fs[i].
func (c *cursor) record(fs []field, fn func(i int) error) error {
	var seen uint64
	var counts [64]int
	for {
		se, ok, err := c.child()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if se.Name.Space != Namespace && se.Name.Space != "" {
			return malformed("unexpected element {%s}%s", shorten(se.Name.Space, 80), shorten(se.Name.Local, 64))
		}
		i := -1
		for j := range fs {
			if fs[j].name == se.Name.Local {
				i = j
				break
			}
		}
		if i < 0 {
			return malformed("unknown element <%s>", shorten(se.Name.Local, 64))
		}
		if seen&(1<<i) != 0 && !fs[i].many {
			return malformed("element <%s> appears more than once", fs[i].name)
		}
		seen |= 1 << i
		if counts[i]++; counts[i] > maxRepeat {
			return malformed("more than %d <%s> elements", maxRepeat, fs[i].name)
		}
		if err := fn(i); err != nil {
			return err
		}
	}
	for i, f := range fs {
		if !f.optional && seen&(1<<i) == 0 {
			return malformed("missing element <%s>", f.name)
		}
	}
	return nil
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// ---- value parsing (xs:long, decimal money, xs:dateTime) ----

func parseInt(name, s string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, malformed("<%s> must be a whole number (xs:long), not %q", name, shorten(s, 40))
	}
	return v, nil
}

// parseMoney accepts an xs:decimal with at most two fraction digits, exactly.
func parseMoney(name, s string) (trade.Money, error) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "$,") {
		return 0, malformed("<%s> must be a decimal amount like 1234.50, not %q", name, shorten(s, 40))
	}
	m, err := trade.ParseMoney(s)
	if err != nil {
		return 0, malformed("<%s>: %s", name, shorten(err.Error(), 100))
	}
	return m, nil
}

func parseTime(name, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// xs:dateTime may omit the zone; read it as UTC.
		if t, err = time.ParseInLocation("2006-01-02T15:04:05.999999999", s, time.UTC); err != nil {
			return time.Time{}, malformed("<%s> must be an xs:dateTime like 2006-01-02T15:04:05Z, not %q", name, shorten(s, 40))
		}
	}
	return t, nil
}
