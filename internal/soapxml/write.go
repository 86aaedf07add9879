// Package soapxml is the SOAP 1.1 document/literal layer shared by StockTrader's services host
// (trade/remote/soap) and WSTest (wstest/soap): the envelope written and read, XML escaping and
// character validity, faults, the WSDL's endpoint address, bounded body reading, and a streaming
// tokenizer with a field-by-field record reader. The services describe only their own messages.
//
// Writing is append-based (no reflection, no intermediate tree). Reading is a pull tokenizer over
// the whole body in memory that allocates nothing per token and bounds everything a hostile
// document could make it spend (depth, attributes, namespace bindings, text, repetitions).
//
// It imports nothing of the workloads, so WSTest and StockTrader share it without WSTest
// depending on StockTrader.
package soapxml

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Namespaces.
const (
	// EnvelopeNS is SOAP 1.1's envelope namespace.
	EnvelopeNS = "http://schemas.xmlsoap.org/soap/envelope/"
	// Envelope12NS is SOAP 1.2's, answered with a VersionMismatch fault.
	Envelope12NS = "http://www.w3.org/2003/05/soap-envelope"
	// XSI is XML Schema's instance namespace (xsi:nil).
	XSI   = "http://www.w3.org/2001/XMLSchema-instance"
	nsXSI = XSI
)

// EnvStart and EnvEnd enclose the Body's content of every envelope this package writes.
const (
	EnvStart = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="` + EnvelopeNS + `"><soap:Body>`
	EnvEnd   = `</soap:Body></soap:Envelope>`
)

// AppendBodyStart appends the envelope's head and the start of the Body's element name+suffix
// (e.g. "getQuote"+"Response") with ns as its default namespace, the way .NET and JAX-RPC write
// it. The suffix is separate so that writing a response does not build a string.
func AppendBodyStart(b []byte, ns, name, suffix string) []byte {
	b = append(b, EnvStart...)
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, suffix...)
	b = append(b, ` xmlns="`...)
	b = append(b, ns...)
	return append(b, `">`...)
}

// AppendBodyEnd closes what AppendBodyStart opened.
func AppendBodyEnd(b []byte, name, suffix string) []byte {
	b = append(b, '<', '/')
	b = append(b, name...)
	b = append(b, suffix...)
	b = append(b, '>')
	return append(b, EnvEnd...)
}

// escTab: 1 = escaped in text, 2 = a control character XML 1.0 cannot carry.
var escTab = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = 2
	}
	t['\t'], t['\n'] = 0, 0
	t['\r'], t['<'], t['>'], t['&'] = 1, 1, 1, 1
	return
}()

// AppendText appends s escaped as element text. Characters XML 1.0 cannot carry (control
// characters, U+FFFE, U+FFFF, invalid UTF-8) become U+FFFD, as encoding/xml does; CR is written
// as a reference so it survives the reader's line-end normalisation.
func AppendText(b []byte, s string) []byte {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; escTab[c] != 0 || c >= utf8.RuneSelf {
			clean = false
			break
		}
	}
	if clean {
		return append(b, s...)
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch escTab[c] {
			case 0:
				b = append(b, c)
			case 2:
				b = append(b, "\uFFFD"...)
			default:
				switch c {
				case '<':
					b = append(b, "&lt;"...)
				case '>':
					b = append(b, "&gt;"...)
				case '&':
					b = append(b, "&amp;"...)
				case '\r':
					b = append(b, "&#xD;"...)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !IsXMLChar(r) {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

// AppendAttr appends s escaped for a double-quoted attribute value: as text, and '"' as &quot;.
func AppendAttr(b []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			return AppendText(b, s)
		}
		b = AppendText(b, s[:i])
		b = append(b, "&quot;"...)
		s = s[i+1:]
	}
}

// AppendStart appends <name>.
func AppendStart(b []byte, name string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	return append(b, '>')
}

// AppendEnd appends </name>.
func AppendEnd(b []byte, name string) []byte {
	b = append(b, '<', '/')
	b = append(b, name...)
	return append(b, '>')
}

// AppendString appends <name>v</name>, v escaped.
func AppendString(b []byte, name, v string) []byte {
	b = AppendStart(b, name)
	b = AppendText(b, v)
	return AppendEnd(b, name)
}

// AppendInt appends <name>v</name>.
func AppendInt(b []byte, name string, v int64) []byte {
	b = AppendStart(b, name)
	b = strconv.AppendInt(b, v, 10)
	return AppendEnd(b, name)
}

// AppendCents appends an amount of cents as an exact xs:decimal with two places, e.g. -12.05:
// money crosses as a decimal, never a float.
func AppendCents(b []byte, cents int64) []byte {
	u := uint64(cents)
	if cents < 0 {
		b = append(b, '-')
		u = -u // two's complement: right for the most negative value too
	}
	b = strconv.AppendUint(b, u/100, 10)
	f := u % 100
	return append(b, '.', byte('0'+f/10), byte('0'+f%10))
}

// AppendStrings appends <fs[i].Name>vs[i]</fs[i].Name> for each value: a run of a record's
// string fields, written under the same names the Reader checks.
func AppendStrings(b []byte, fs []Field, vs ...string) []byte {
	for i, v := range vs {
		b = AppendString(b, fs[i].Name, v)
	}
	return b
}
