package logsafe

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestValue(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                "plain",
		"a\nb\rc\x00d\x1b[31m": `a\nb\rc\x00d\x1b[31m`,
		"caf\xc3\xa9":          "café",
		"bad\xff":              `bad\xff`,
		"line\u2028sep":        `line\u2028sep`,
	} {
		if got := Value(in); got != want {
			t.Errorf("Value(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("é", 40000) // 80,000 bytes
	got := Value(long)
	if len(got) > MaxValue+32 || !strings.HasSuffix(got, "…[80000 bytes]") || !strings.HasPrefix(got, "éé") {
		t.Fatalf("a long value is logged as %d bytes: %q", len(got), got[:min(len(got), 300)])
	}
}

// TestHandlerCutsRequestValues: a 64 KB form field was logged whole (5 requests, 326 KB). Now
// every value is cut, whether a string, an error or inside a group; stacks are kept.
func TestHandlerCutsRequestValues(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewTextHandler(&buf, nil)))
	big := strings.Repeat("A", 64<<10)
	for range 5 {
		log.With("path", "/x"+big).Error("fault "+big, "field", big, "err", errors.New("bad "+big), slog.Group("g", "v", big), "stack", "frame\nframe")
	}
	if buf.Len() > 5*(MaxMessage+5*(MaxValue+40)+200) {
		t.Fatalf("5 requests with a 64 KB field logged %d bytes", buf.Len())
	}
	if strings.Count(buf.String(), "\n") != 5 {
		t.Fatalf("want 5 lines, got:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), `stack="frame\nframe"`) {
		t.Fatalf("stack attribute changed:\n%s", buf.String())
	}
}

func TestLimiter(t *testing.T) {
	now := time.Unix(0, 0)
	l := NewLimiter(3, time.Second)
	l.now = func() time.Time { return now }
	for i := range 3 {
		if ok, _ := l.Allow("10.0.0.1:1000"); !ok {
			t.Fatalf("line %d refused within the burst", i)
		}
	}
	for i := range 5 {
		if ok, _ := l.Allow("10.0.0.1:" + string(rune('0'+i))); ok {
			t.Fatal("a line beyond the burst was allowed (other ports of one client share it)")
		}
	}
	if ok, _ := l.Allow("10.0.0.2:1"); !ok {
		t.Fatal("another client was limited")
	}
	now = now.Add(time.Second)
	ok, dropped := l.Allow("10.0.0.1:1")
	if !ok || dropped != 5 {
		t.Fatalf("after a second: allowed %v, dropped %d; want true, 5", ok, dropped)
	}
}

// TestGlobalLogLimit is finding 8 of issue 35: the error log was capped per client address
// only, so a stranger cycling source addresses wrote 4 MB of server log in 45 s. 5,000 new
// addresses each failing a TLS handshake now write GlobalBurst lines, the next allowed line
// saying how many were dropped. The clock stands still (no refill), so the count is exact.
// Mutant: log-global-off.
func TestGlobalLogLimit(t *testing.T) {
	var buf bytes.Buffer
	l := NewLimiter(10, 6*time.Second)
	at := time.Unix(1000, 0)
	l.now = func() time.Time { return at }
	lg := ErrorLog(slog.NewTextHandler(&buf, nil), slog.LevelWarn, l)
	for i := 0; i < 5000; i++ {
		lg.Printf("http: TLS handshake error from 10.%d.%d.%d:4242: EOF", i>>16, (i>>8)&255, i&255)
	}
	if n := strings.Count(buf.String(), "\n"); n != GlobalBurst {
		t.Fatalf("5,000 addresses wrote %d lines (%d bytes), want the global burst %d", n, buf.Len(), GlobalBurst)
	}
	at = at.Add(GlobalEvery)
	buf.Reset()
	lg.Printf("http: TLS handshake error from 192.0.2.1:4242: EOF")
	if !strings.Contains(buf.String(), "dropped=4900") {
		t.Errorf("the next line after the refill does not count the dropped: %s", buf.String())
	}
}

// TestTerminalEscapesC1: the C1 controls (U+0080–U+009F) act on terminals that honour 8-bit
// controls: U+009B is CSI (a colour, a cursor move), U+0085 NEL a new line. They are escaped
// like the 7-bit ones; a printable non-ASCII letter is kept. Mutant: logsafe-c1-raw.
func TestTerminalEscapesC1(t *testing.T) {
	for _, in := range []string{"a\u009b2Jb", "ok\u0085verdict: VALID", "x\u0080y\u009fz"} {
		got := Terminal(in)
		if strings.ContainsFunc(got, func(r rune) bool { return r >= 0x80 && r < 0xa0 }) {
			t.Errorf("Terminal(%q) = %q: a C1 control kept raw", in, got)
		}
		if v := Value(in); strings.ContainsFunc(v, func(r rune) bool { return r >= 0x80 && r < 0xa0 }) {
			t.Errorf("Value(%q) = %q: a C1 control kept raw", in, v)
		}
	}
	if got := Terminal("Zürich é"); got != "Zürich é" {
		t.Errorf("Terminal of printable letters changed them: %q", got)
	}
}
