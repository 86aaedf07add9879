package sse

import (
	"io"
	"strings"
	"testing"
)

// TestReader: events with a name, multi-line data and an id; comments, retry fields and blank
// lines between events are skipped; an unnamed event is "message"; the end is io.EOF.
func TestReader(t *testing.T) {
	r := NewReader(strings.NewReader("retry: 2000\n\n: ping\n\nevent: quote\ndata: {\"a\":1}\nid: 7\n\ndata: one\ndata:two\n\n\n"))
	want := []Event{{Name: "quote", Data: `{"a":1}`, ID: "7"}, {Name: "message", Data: "one\ntwo"}}
	for _, w := range want {
		ev, err := r.Next()
		if err != nil || ev != w {
			t.Fatalf("got %+v, %v; want %+v", ev, err, w)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last event: %v, want io.EOF", err)
	}
}
