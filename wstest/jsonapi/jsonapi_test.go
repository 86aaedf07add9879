package jsonapi

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/testing/alloctest"
	"github.com/tradebench/tradebench/wstest"
)

// fill repeats item between head and tail up to about size bytes.
func fill(head, item, sep, tail string, size int) []byte {
	n := (size - len(head) - len(tail)) / (len(item) + len(sep))
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(head)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(item)
	}
	b.WriteString(tail)
	return b.Bytes()
}

func post(h http.Handler, op string, body []byte) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, PathPrefix+op, bytes.NewReader(body)))
	return w
}

// TestHostileBodiesBoundedMemory sends bodies at the byte limit holding hundreds of times more
// items than the item limit. Each must be refused, and the handler must not materialise them
// all first: an empty struct is 3 bytes of JSON but tens of bytes decoded, so decoding first
// and counting after costs ~10x the body.
func TestHostileBodiesBoundedMemory(t *testing.T) {
	const size = wstest.DefaultMaxBodyBytes - 64
	chain := func(n int) []byte {
		return []byte(`{"list":` + strings.Repeat(`{"Next":`, n) + "null" + strings.Repeat("}", n) + `}`)
	}
	cases := []struct {
		name, op string
		body     []byte
	}{
		{"empty structs", "EchoStruct", fill(`{"array":[`, `{}`, ",", `]}`, size)},
		{"nulls", "EchoStruct", fill(`{"array":[`, `null`, ",", `]}`, size)},
		{"mistyped elements", "EchoStruct", fill(`{"array":[`, `1`, ",", `]}`, size)},
		{"nested arrays", "EchoStruct", fill(`{"array":[`, `[]`, ",", `]}`, size)},
		{"whitespace and strings", "EchoStruct", fill(`{"array":[`, `{"s":"{[,\"{"}`, " ,\n", `]}`, size)},
		{"list chain", "EchoList", chain(wstest.DefaultMaxItems + 100)},
		{"deep list chain", "EchoList", chain(9000)},
	}
	h := NewHandler(wstest.Limits{}, nil)
	post(h, "EchoVoid", []byte(`{}`)) // warm up: pools, lazily built tables
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var w *httptest.ResponseRecorder
			alloc := alloctest.During(func() { w = post(h, tc.op, tc.body) })
			if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "too many items") {
				t.Fatalf("status %d %s, want 400 naming too many items", w.Code, w.Body)
			}
			if limit := 3*uint64(len(tc.body)) + 1<<20; alloc > limit {
				t.Fatalf("a %d-byte body allocated %d bytes (limit %d)", len(tc.body), alloc, limit)
			}
			t.Logf("%d-byte body: %d bytes allocated", len(tc.body), alloc)
		})
	}
}

// TestItemCountEdges checks the pre-decode count admits what the contract allows and counts
// only structure: brackets and commas inside strings are text.
func TestItemCountEdges(t *testing.T) {
	lim := wstest.Limits{MaxItems: 3}
	h := NewHandler(lim, nil)
	ok := []struct{ op, body string }{
		{"EchoStruct", `{"array":[{"i":1,"s":"{{{[[[,,,\"}"},{"s":"\\"},{"s":"x,y"}]}`},
		{"EchoList", `{"list":{"s":"[{","Next":{"Next":{"Next":null}}}}`},
		{"EchoSynthetic", `{"synth":{"Strng":"[[[,,,{{{","Strct":{"i":1},"Barray":"AAEC"}}`},
		{"EchoStruct", "{\"array\" : [ {} , {} , {} ] }"},
		{"EchoVoid", ``},
	}
	for _, tc := range ok {
		if w := post(h, tc.op, []byte(tc.body)); w.Code != 200 {
			t.Errorf("%s %s: %d %s", tc.op, tc.body, w.Code, w.Body)
		}
	}
	bad := []struct{ op, body, want string }{
		{"EchoStruct", `{"array":[{},{},{},{}]}`, "too many items"},
		{"EchoStruct", `{"array":[{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]}`, "too many items"},
		{"EchoList", `{"list":{"Next":{"Next":{"Next":{}}}}}`, "too many items"},
		// a second value after the first must not slip through because counting it failed
		{"EchoStruct", `{"array":[]}` + strings.Repeat(" ", 4096) + strings.Repeat("{}", 100), "bad EchoStruct request"},
	}
	for _, tc := range bad {
		w := post(h, tc.op, []byte(tc.body))
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("%s %.60s: %d %s, want 400 containing %q", tc.op, tc.body, w.Code, w.Body, tc.want)
		}
	}
}

// The count must hold however the body arrives: byte by byte, a string split across reads.
func TestItemCountAcrossReads(t *testing.T) {
	h := NewHandler(wstest.Limits{MaxItems: 2}, nil)
	for _, tc := range []struct {
		body string
		code int
	}{
		{`{"array":[{"s":"a\"],{},{}"},{"s":"\\\\"}]}`, 200},
		{`{"array":[{"s":"a\"],{},{}"},{"s":"\\\\"},{},{},{},{},{},{},{},{},{},{},{}]}`, 400},
	} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, PathPrefix+"EchoStruct", io.NopCloser(&oneByteReader{s: tc.body}))
		h.ServeHTTP(w, r)
		if w.Code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.body, w.Code, w.Body, tc.code)
		}
	}
}

type oneByteReader struct{ s string }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.s) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.s[0]
	r.s = r.s[1:]
	return 1, nil
}
