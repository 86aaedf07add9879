// Package sse reads Server-Sent Events (the text/event-stream format of the HTML standard): the
// live quote streams' consumers — the smart client, the load driver's stream subscribers and
// the tests — share this one reader. It is shared infrastructure: it knows the wire format, not
// what any event means.
package sse

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// Event is one dispatched event. Name is "message" when the stream gave none.
type Event struct {
	Name string
	Data string
	ID   string
}

// MaxLine bounds one line of a stream, so a broken server cannot make a reader buffer without
// end.
const MaxLine = 1 << 20

// Reader parses events from a stream.
type Reader struct {
	sc *bufio.Scanner
}

// NewReader reads events from r.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), MaxLine)
	return &Reader{sc: sc}
}

// Next returns the next event; io.EOF when the stream ended cleanly. Comments (": ping") and
// retry fields are consumed silently.
func (r *Reader) Next() (Event, error) {
	var ev Event
	var data []string
	have := false
	for r.sc.Scan() {
		line := r.sc.Text()
		if line == "" {
			if have {
				ev.Data = strings.Join(data, "\n")
				if ev.Name == "" {
					ev.Name = "message"
				}
				return ev, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.Name, have = value, true
		case "data":
			data, have = append(data, value), true
		case "id":
			ev.ID = value
		}
	}
	if err := r.sc.Err(); err != nil {
		return Event{}, err
	}
	return Event{}, io.EOF
}

// Stream is an open event stream over HTTP.
type Stream struct {
	*Reader
	Resp *http.Response
}

// Close ends the stream.
func (s *Stream) Close() error { return s.Resp.Body.Close() }

// StatusError is a stream request the server refused (e.g. 400 for a bad symbol list, 503
// when it streams to as many clients as it may).
type StatusError struct {
	Status int
	Body   string // the start of the response body
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("stream refused: HTTP %d: %s", e.Status, e.Body)
}

// Dial opens url as an event stream with c (its Timeout must be 0: a stream is long; bound it
// with ctx instead). A status other than 200 is a *StatusError.
func Dial(ctx context.Context, c *http.Client, url string) (*Stream, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		resp.Body.Close()
		return nil, &StatusError{Status: resp.StatusCode, Body: strings.TrimSpace(string(b))}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body.Close()
		return nil, errors.New("not an event stream: Content-Type " + resp.Header.Get("Content-Type"))
	}
	return &Stream{Reader: NewReader(resp.Body), Resp: resp}, nil
}
