package soapxml

import (
	"strings"
	"testing"
)

// FuzzReader reads any document as a service reads a request: the envelope, then every element
// under the Body, an element whose name starts with "v" as a string and any other as elements.
// Beyond not panicking: every error is a fault the sender caused (AsFault classifies it, never
// a server fault), no element is read deeper than Limits.Depth or text longer than Limits.Text,
// and every string the reader accepts is written back exactly (AppendString, read again).
func FuzzReader(f *testing.F) {
	for _, d := range []string{
		EnvStart + `<op/>` + EnvEnd,
		EnvStart + `<buy xmlns="urn:test"><userID>uid:0</userID><vsymbol>s:1</vsymbol><vq>1</vq></buy>` + EnvEnd,
		`<?xml version="1.0"?><!-- c --><s:Envelope xmlns:s="` + EnvelopeNS + `"><s:Header><h/></s:Header><s:Body><op><v>a&amp;b&#x41;<![CDATA[<x>]]></v></op></s:Body></s:Envelope>`,
		`<s:Envelope xmlns:s="` + EnvelopeNS + `"><s:Header><h s:mustUnderstand="1"/></s:Header><s:Body><op/></s:Body></s:Envelope>`,
		`<e:Envelope xmlns:e="` + Envelope12NS + `"><e:Body/></e:Envelope>`,
		`<!DOCTYPE x [<!ENTITY e "e">]>` + EnvStart + `<op/>` + EnvEnd,
		EnvStart + strings.Repeat("<a>", 40) + strings.Repeat("</a>", 40) + EnvEnd,
		EnvStart + `<op><v>` + strings.Repeat("x", 300) + `</v></op>` + EnvEnd,
		EnvStart + `<op><v>東京 ✓ &#xFFFE; &#1;</v><v>` + "\xff" + `</v></op>` + EnvEnd,
		string(AppendFault(nil, &Fault{Code: CodeServer, String: "m"}, nil)),
		EnvStart + `<op xmlns:p="urn:x"><p:v p:a="1" b='2'>t</p:v></op>` + EnvEnd,
	} {
		f.Add([]byte(d))
	}
	lim := Limits{Depth: 16, Text: 256, Repeat: 20}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var r, again Reader
		var walk func(tok *Token, depth int) error
		walk = func(tok *Token, depth int) error {
			if depth > lim.Depth {
				t.Fatalf("an element read at depth %d, past the limit of %d", depth, lim.Depth)
			}
			if strings.HasPrefix(string(tok.Local), "v") {
				s, err := r.String(tok)
				if err != nil {
					return err
				}
				if len(s) > lim.Text {
					t.Fatalf("text of %d bytes read, past the limit of %d", len(s), lim.Text)
				}
				again.Reset([]byte(EnvStart+string(AppendString(nil, "v", s))+EnvEnd), "", lim)
				var back string
				if err := again.Envelope("v", func(tok *Token) (err error) { back, err = again.String(tok); return err }); err != nil || back != s {
					t.Fatalf("accepted text %q written and read back as %q (%v)", s, back, err)
				}
				return nil
			}
			var child Token
			for {
				ok, err := r.Child(string(tok.Local), &child)
				if err != nil || !ok {
					return err
				}
				c := child
				if err := walk(&c, depth+1); err != nil {
					return err
				}
			}
		}
		r.Reset(doc, "urn:test", lim)
		err := r.Envelope("an element", func(tok *Token) error { return walk(tok, 3) }) // Envelope, Body, the operation
		if err != nil {
			if f, ok := AsFault(err); !ok || f.Code == CodeServer {
				t.Fatalf("a document's error not classed as the sender's fault: %v", err)
			}
		}
		r.Reset(doc, "urn:test", lim)
		if _, err := r.ReadFault(func(*Token) error { return r.Skip() }); err != nil {
			if _, ok := AsFault(err); !ok {
				t.Fatalf("reading a fault: an unclassified error %v", err)
			}
		}
		r.Release()
	})
}
