package soapxml

import (
	"errors"
	"math"
	"strings"
	"testing"
)

const tns = "urn:test"

func doc(body string) []byte {
	return []byte(EnvStart + body + EnvEnd)
}

// readBody reads doc's Body element with fn, the way both services do.
func read(t *testing.T, r *Reader, d []byte, fn func(t *Token) error) error {
	t.Helper()
	r.Reset(d, tns, Limits{Depth: 32, Text: 1 << 10, Repeat: 5})
	return r.Envelope("an element", fn)
}

// TestTextRoundTrip: any valid text survives AppendText and the Reader; what XML 1.0 cannot
// carry is written as U+FFFD, never as an unreadable document.
func TestTextRoundTrip(t *testing.T) {
	var r Reader
	for _, s := range []string{"", "plain", "a&b<c>d\"e'f", "tab\tnl\ncr\r\ncrlf", "東京 ✓ 😀", "]]>", "\x01\x1f bad", "\xff invalid", "\uFFFE\uFFFF"} {
		var got string
		err := read(t, &r, doc(string(AppendString(nil, "v", s))), func(tok *Token) (err error) {
			got, err = r.String(tok)
			return err
		})
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		want := strings.Map(func(c rune) rune {
			if !IsXMLChar(c) || c == '\uFFFD' {
				return '\uFFFD'
			}
			return c
		}, s)
		if got != want {
			t.Errorf("%q came back as %q, want %q", s, got, want)
		}
	}
}

// TestStringRefusesWhatXMLCannotCarry: text that reaches the reader with a character XML 1.0
// does not allow is refused, so an echo can never differ from what was sent.
func TestStringRefusesWhatXMLCannotCarry(t *testing.T) {
	var r Reader
	for in, want := range map[string]string{
		"a\uFFFEb":                           "character U+FFFE is not allowed",
		"<![CDATA[\uFFFF]]>":                 "character U+FFFF is not allowed",
		"a\x01b":                             "control character 0x01",
		"a\xffb":                             "not valid UTF-8",
		strings.Repeat("x", 2000):            "longer than 1024 bytes",
		"a&amp;" + strings.Repeat("x", 1100): "longer than 1024 bytes",
	} {
		err := read(t, &r, doc("<v>"+in+"</v>"), func(tok *Token) error { _, err := r.String(tok); return err })
		if f, ok := AsFault(err); !ok || f.Code != CodeClient || !strings.Contains(f.String, want) {
			t.Errorf("%.40q: %v, want a Client fault containing %q", in, err, want)
		}
	}
}

var fields = []Field{{Name: "a"}, {Name: "b", Optional: true}, {Name: "c", Optional: true, Many: true}}

func TestRecord(t *testing.T) {
	var r Reader
	cases := []struct{ body, want, err string }{
		{`<op xmlns="urn:test"><a>1</a><c>3</c><b>2</b><c>4</c></op>`, "a=1 c=3 b=2 c=4", ""},
		{`<x:op xmlns:x="urn:test"><x:a>1</x:a><b>2</b></x:op>`, "a=1 b=2", ""}, // unqualified children too
		{`<op xmlns="urn:test"><b>2</b></op>`, "", "missing element <a> in <op>"},
		{`<op xmlns="urn:test"><a>1</a><a>2</a></op>`, "", "element <a> appears more than once in <op>"},
		{`<op xmlns="urn:test"><a>1</a><z>2</z></op>`, "", "unexpected element <z> in <op>"},
		{`<op xmlns="urn:test"><a xmlns="urn:other">1</a></op>`, "", "unexpected element {urn:other}a in <op>"},
		{`<op xmlns="urn:test"><a>1</a><c/><c/><c/><c/><c/></op>`, "", "more than 5 elements in <op>"},
		{`<op xmlns="urn:test">text<a>1</a></op>`, "", "unexpected text in <op> (it holds elements)"},
	}
	for _, tc := range cases {
		var got []string
		err := read(t, &r, doc(tc.body), func(tok *Token) error {
			return r.Record("op", fields, func(i int, tok *Token) error {
				s, err := r.String(tok)
				got = append(got, fields[i].Name+"="+s)
				return err
			})
		})
		if tc.err != "" {
			if f, ok := AsFault(err); !ok || f.Code != CodeClient || f.String != tc.err {
				t.Errorf("%s: %v, want the Client fault %q", tc.body, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.body, got, err, tc.want)
		}
	}
}

// TestRecordAllocatesNothing: reading records costs no allocation per record (the callbacks'
// Tokens are the Reader's, not each call's), only what the caller keeps.
func TestRecordAllocatesNothing(t *testing.T) {
	var r Reader
	d := doc(`<op xmlns="urn:test">` + strings.Repeat(`<c><a>1</a><b>2</b></c>`, 4) + `<a>x</a></op>`)
	n := 0
	run := func() {
		r.Reset(d, tns, Limits{Depth: 32})
		err := r.Envelope("op", func(*Token) error {
			return r.Record("op", fields, func(i int, tok *Token) error {
				if i != 2 {
					_, err := r.Text(tok.Local)
					return err
				}
				return r.Record("c", fields, func(int, *Token) error { n++; return r.Skip() })
			})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	run()
	if a := testing.AllocsPerRun(100, run); a != 0 {
		t.Fatalf("%v allocations a document", a)
	}
	if n == 0 {
		t.Fatal("the nested records were not read")
	}
}

func TestEnvelope(t *testing.T) {
	var r Reader
	skip := func(*Token) error { return r.Skip() }
	for _, tc := range []struct{ doc, code, want string }{
		{EnvStart + `<op/>` + EnvEnd, "", ""},
		{`<?xml version="1.0"?><!-- c --><s:Envelope xmlns:s="` + EnvelopeNS + `"><s:Header><h/></s:Header><s:Body><op/></s:Body><x:after xmlns:x="urn:x"/></s:Envelope>`, "", ""},
		{EnvStart + `<?pi x?><op/>` + EnvEnd, CodeClient, "processing instructions are not allowed"},
		{`<?pi x?>` + EnvStart + `<op/>` + EnvEnd, CodeClient, "processing instructions are not allowed"},
		{`<s:Envelope xmlns:s="` + EnvelopeNS + `"><s:Header/><s:Header/><s:Body><op/></s:Body></s:Envelope>`, CodeClient, "}Header in soap:Envelope"},
		{`<s:Envelope xmlns:s="` + EnvelopeNS + `"><s:Header><h s:mustUnderstand="1"/></s:Header><s:Body><op/></s:Body></s:Envelope>`, CodeMustUnderstand, "mustUnderstand"},
		{`<e:Envelope xmlns:e="` + Envelope12NS + `"><e:Body/></e:Envelope>`, CodeVersionMismatch, "SOAP 1.2"},
		{EnvStart + EnvEnd, CodeClient, "empty soap:Body: expected one op"},
		{EnvStart + `<op/><op/>` + EnvEnd, CodeClient, "more than one element"},
		{EnvStart + `<op/>` + EnvEnd + `x`, CodeClient, "text after the root element"},
		{EnvStart + `<op/>` + EnvEnd + `<x/>`, CodeClient, "content after the root element"},
		{`<!DOCTYPE x [<!ENTITY e "e">]>` + EnvStart + `<op/>` + EnvEnd, CodeClient, "DOCTYPE declarations are not allowed"},
		{EnvStart + strings.Repeat("<a>", 40) + strings.Repeat("</a>", 40) + EnvEnd, CodeClient, "nested deeper than 32"},
	} {
		r.Reset([]byte(tc.doc), tns, Limits{Depth: 32})
		err := r.Envelope("one op", skip)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.doc, err)
			}
			continue
		}
		if f, ok := AsFault(err); !ok || f.Code != tc.code || !strings.Contains(f.String, tc.want) {
			t.Errorf("%s: %v, want a %s fault containing %q", tc.doc, err, tc.code, tc.want)
		}
	}
}

func TestFaultRoundTrip(t *testing.T) {
	var r Reader
	in := &Fault{Code: CodeClient, String: "bad <input> & more"}
	d := AppendFault(nil, in, func(b []byte) []byte { return AppendString(b, "why", "because") })
	var why string
	var out *Fault
	err := read(t, &r, d, func(tok *Token) (err error) {
		if !tok.IsFault() {
			t.Fatalf("not a fault: %s", tok.Local)
		}
		out, err = r.ReadFault(func(tok *Token) (err error) { why, err = r.String(tok); return err })
		return err
	})
	if err != nil || *out != *in || why != "because" {
		t.Fatalf("%s\nread back %+v %q %v", d, out, why, err)
	}
}

// TestReleasePinsNoDocument checks that a released Reader holds no reference into the document
// it read: namespace bindings, attributes and tokens are slices of it, and stay reachable past
// their slices' lengths.
func TestReleasePinsNoDocument(t *testing.T) {
	var r Reader
	d := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="` + EnvelopeNS + `" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/"><SOAP-ENV:Header></SOAP-ENV:Header><SOAP-ENV:Body><tns:op xmlns:tns="urn:test"><tns:a>1</tns:a></tns:op></SOAP-ENV:Body></SOAP-ENV:Envelope>`)
	err := read(t, &r, d, func(*Token) error {
		return r.Record("op", fields, func(_ int, tok *Token) error { return r.Skip() })
	})
	if err != nil {
		t.Fatal(err)
	}
	if cap(r.s.ns) == 0 || cap(r.s.attrs) == 0 || len(r.toks) == 0 {
		t.Fatal("the document declared namespaces in records: the test does not exercise what it checks")
	}
	r.Release()
	if r.s.b != nil {
		t.Error("the scanner keeps the document")
	}
	for i, b := range r.s.ns[:cap(r.s.ns)] {
		if b.prefix != nil || b.uri != nil {
			t.Errorf("namespace binding %d keeps a slice of the document", i)
		}
	}
	for i, a := range r.s.attrs[:cap(r.s.attrs)] {
		if a.name != nil || a.value != nil {
			t.Errorf("attribute %d keeps a slice of the document", i)
		}
	}
	for i, tok := range r.toks {
		if tok.Local != nil || tok.NS != nil || tok.text != nil {
			t.Errorf("token %d keeps a slice of the document", i)
		}
	}
}

func TestAppendCents(t *testing.T) {
	for c, want := range map[int64]string{
		0: "0.00", 5: "0.05", -5: "-0.05", 1234: "12.34", -1205: "-12.05", 100: "1.00",
		math.MaxInt64: "92233720368547758.07", math.MinInt64: "-92233720368547758.08",
	} {
		if got := string(AppendCents(nil, c)); got != want {
			t.Errorf("%d cents: %s, want %s", c, got, want)
		}
	}
}

func TestWSDLDoc(t *testing.T) {
	w := &WSDL{Head: `<a location="`, Tail: `"/>`}
	if got := string(w.Doc(`http://h/p?a=1&b="2"<`)); got != `<a location="http://h/p?a=1&amp;b=&quot;2&quot;&lt;"/>` {
		t.Fatal(got)
	}
	for q, want := range map[string]bool{"wsdl": true, "WSDL": true, "x=1&wsdl": true, "wsdl=1": true, "": false, "wsdlx": false} {
		if IsWSDLQuery(q) != want {
			t.Errorf("IsWSDLQuery(%q) = %v", q, !want)
		}
	}
}

func TestReadBody(t *testing.T) {
	body := strings.Repeat("x", 100)
	for _, size := range []int64{-1, 100} {
		if b, err := ReadBody(nil, strings.NewReader(body), size, 100); err != nil || string(b) != body {
			t.Errorf("size %d: %v", size, err)
		}
		if _, err := ReadBody(nil, strings.NewReader(body+"y"), size, 100); !errors.Is(err, ErrTooLarge) {
			t.Errorf("size %d: over the limit: %v", size, err)
		}
	}
}
