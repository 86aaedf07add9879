package untrusted

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestCheckJSONDepth: the depth bound counts brackets outside strings only, and an escaped quote
// does not end a string — else a hostile file hides deep nesting behind "\"" (the check sees the
// brackets as inside a string) and passes the bound. Mutant: untrusted-json-escape-unskipped.
func TestCheckJSONDepth(t *testing.T) {
	deep := strings.Repeat("[", 20) + strings.Repeat("]", 20)
	for _, c := range []struct {
		doc     string
		tooDeep bool
	}{
		{`{"a":[1,2,{"b":[]}]}`, false},
		{`{"a":"[[[[[[[[[[[[[[[[[[[[[[[[["}`, false}, // brackets in a string are text
		{`{"a":"\\", "b":"[[[[[[[[[[[[[[[["}`, false},
		{deep, true},
		{`{"a":"\"", "b":` + deep + `}`, true}, // hidden behind an escaped quote
		{`{"a":"x\"y\"", "b":` + deep + `}`, true},
	} {
		err := CheckJSON([]byte(c.doc), 10)
		if got := errors.Is(err, ErrTooDeep); got != c.tooDeep {
			t.Errorf("CheckJSON(%.40q…) = %v, want too deep %v (nesting hidden behind an escape?)", c.doc, err, c.tooDeep)
		}
	}
}

// jsonDepth is the nesting of a valid JSON document, as the standard decoder reads it.
func jsonDepth(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	depth, most := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return most
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			most = max(most, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// FuzzCheckJSON: on every valid JSON document (results files, config.json, a target's answers)
// the one-pass depth check agrees with the standard decoder: it refuses exactly the documents
// nested deeper than its bound — no escape or string hides a level from it, and it refuses no
// shallow document.
func FuzzCheckJSON(f *testing.F) {
	deep := strings.Repeat("[", 20) + strings.Repeat("]", 20)
	for _, s := range []string{`{"a":[1,2,{"b":[]}]}`, `{"a":"[[[["}`, `{"a":"\"", "b":` + deep + `}`, `{"a":"\\", "b":"[["}`, `"\u005c"`, deep, `[[[{"x":"]]]"}]]]`} {
		f.Add([]byte(s), 4)
	}
	f.Fuzz(func(t *testing.T, b []byte, bound int) {
		bound = bound&63 + 1
		if !json.Valid(b) {
			_ = CheckJSON(b, bound) // only the bound's own safety: no panic on anything
			return
		}
		d := jsonDepth(b)
		if err := CheckJSON(b, bound); (err != nil) != (d > bound) {
			t.Fatalf("CheckJSON(bound %d) = %v on a document %d deep", bound, err, d)
		}
	})
}

// FuzzUnmarshalYAML: every YAML document (scenarios, price lists) is refused or parsed to a
// tree within the bounds, its aliases expanded: no alias bomb gets past the check, no panic.
func FuzzUnmarshalYAML(f *testing.F) {
	for _, s := range []string{
		"name: t\nflow:\n  - request: {name: x, url: /x}\n",
		"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
		"a: &a [*a]\n",
		strings.Repeat("- ", 100) + "x\n",
		"currency: USD\nitems:\n  - name: server\n    cost: 1000.00\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var doc yaml.Node
		if err := UnmarshalYAML(b, &doc); err != nil {
			return
		}
		if err := CheckYAML(&doc); err != nil {
			t.Fatalf("a document UnmarshalYAML accepted fails its own check: %v", err)
		}
		var v any
		_ = doc.Decode(&v) // within the bounds: expanding it is safe
	})
}
