// Package logsafe keeps what strangers send from flooding or forging the logs: a slog.Handler
// that cuts every logged string to MaxValue bytes and escapes control characters (uncut, a
// stranger's 64 KB form field is logged whole; unescaped, a newline in a value forges a log
// line), and a
// per-client limiter for error logging, so one client repeating a failing request cannot fill
// the disk.
package logsafe

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxValue is how many bytes of a logged string are kept.
const MaxValue = 200

// MaxMessage is how many bytes of a log message are kept: messages are the program's own
// words, but net/http's error log puts request data in them.
const MaxMessage = 1000

// Value returns s with control characters escaped and cut to MaxValue bytes (on a character
// boundary), saying how long it was.
func Value(s string) string { return clean(s, MaxValue) }

// Terminal returns an untrusted string (a label, a transaction name, a reason read from a results
// file) fit to print on a terminal: every control character escaped, newlines included, so an
// escape sequence cannot set the title, clear the screen or move the cursor, and a newline
// cannot print a line of its own (a forged "verdict: VALID"). Unlike Value it keeps the whole
// string.
func Terminal(s string) string { return clean(s, math.MaxInt) }

// TerminalLines is Terminal for text of several lines (an error message): each line escaped,
// the newlines between them kept.
func TerminalLines(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && (r < 0x20 || r == 0x7f || r >= 0x80) }) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Terminal(l)
	}
	return strings.Join(lines, "\n")
}

// CSVCell returns an untrusted string fit for a CSV cell a spreadsheet opens: one that starts
// with = + - @, a tab or a carriage return is prefixed with a single quote, as OWASP advises
// against formula injection (=HYPERLINK(…) in a transaction's name ran as a formula).
func CSVCell(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

func clean(s string, max int) string {
	safe := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			safe = false
			break
		}
	}
	if safe && len(s) <= max {
		return s
	}
	out := make([]byte, 0, min(len(s), max)+32)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		var piece string
		switch {
		case r == utf8.RuneError && n == 1:
			piece = `\x` + strconv.FormatUint(uint64(s[i]), 16)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			piece = strconv.QuoteRune(r)
			piece = piece[1 : len(piece)-1]
		default:
			piece = s[i : i+n]
		}
		if len(out)+len(piece) > max {
			return string(out) + fmt.Sprintf("…[%d bytes]", len(s))
		}
		out = append(out, piece...)
		i += n
	}
	return string(out)
}

// Handler wraps h so every string, error and Stringer attribute value is passed through
// Value and the message is cut to MaxMessage. Attributes named "stack" (a recovered panic's
// stack, the program's own text) are kept whole.
func Handler(h slog.Handler) slog.Handler {
	if _, ok := h.(*handler); ok {
		return h
	}
	return &handler{h}
}

type handler struct{ h slog.Handler }

func (s *handler) Enabled(ctx context.Context, l slog.Level) bool { return s.h.Enabled(ctx, l) }

func (s *handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, clean(r.Message, MaxMessage), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(cleanAttr(a))
		return true
	})
	return s.h.Handle(ctx, out)
}

func (s *handler) WithAttrs(as []slog.Attr) slog.Handler {
	c := make([]slog.Attr, len(as))
	for i, a := range as {
		c[i] = cleanAttr(a)
	}
	return &handler{s.h.WithAttrs(c)}
}

func (s *handler) WithGroup(name string) slog.Handler { return &handler{s.h.WithGroup(name)} }

func cleanAttr(a slog.Attr) slog.Attr {
	if a.Key == "stack" {
		return a
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Value(v.String()))
	case slog.KindGroup:
		g := v.Group()
		c := make([]any, len(g))
		for i, x := range g {
			c[i] = cleanAttr(x)
		}
		return slog.Group(a.Key, c...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, Value(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, Value(x.String()))
		case []byte:
			return slog.String(a.Key, Value(string(x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// Limiter allows each client a burst of log lines, refilled at a steady rate; lines beyond
// it are dropped and counted, and the count is reported with the client's next allowed line.
// Clients are keyed by IP address (not port: a client opens many connections). Beside the
// per-client buckets one global bucket bounds all clients together (GlobalBurst lines, then one
// per GlobalEvery), because per-client buckets alone let a stranger who cycles source
// addresses write 4 KB for each new address (4 MB in 45 s, measured).
type Limiter struct {
	burst int
	every time.Duration // one more line per this interval
	now   func() time.Time

	mu     sync.Mutex
	m      map[string]*bucket
	global bucket
}

// The global bucket of every Limiter: a burst of 100 lines, then one a second.
const (
	GlobalBurst = 100
	GlobalEvery = time.Second
)

type bucket struct {
	tokens  float64
	last    time.Time
	dropped int64
}

// maxClients bounds the limiter's memory; beyond it, idle clients' buckets are forgotten.
const maxClients = 10_000

// NewLimiter allows burst lines at once and one more per every (e.g. 10 and 6s: ten a minute).
func NewLimiter(burst int, every time.Duration) *Limiter {
	return &Limiter{burst: burst, every: every, now: time.Now, m: map[string]*bucket{}, global: bucket{tokens: GlobalBurst}}
}

// DefaultLimiter is what the servers use: a burst of 10 error lines, then 10 a minute per client.
func DefaultLimiter() *Limiter { return NewLimiter(10, 6*time.Second) }

// Allow reports whether a line about remoteAddr's request may be logged, and how many were
// dropped for that client since the last one allowed.
func (l *Limiter) Allow(remoteAddr string) (ok bool, dropped int64) {
	if l == nil {
		return true, 0
	}
	ip := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		ip = h
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.m[ip]
	if b == nil {
		if len(l.m) >= maxClients {
			full := time.Duration(l.burst) * l.every
			for k, v := range l.m {
				if now.Sub(v.last) > full && v.dropped == 0 {
					delete(l.m, k)
				}
			}
		}
		b = &bucket{tokens: float64(l.burst), last: now}
		l.m[ip] = b
	}
	b.tokens = min(float64(l.burst), b.tokens+float64(now.Sub(b.last))/float64(l.every))
	b.last = now
	if b.tokens < 1 {
		b.dropped++
		return false, 0
	}
	g := &l.global
	if g.last.IsZero() {
		g.last = now
	}
	g.tokens = min(GlobalBurst, g.tokens+float64(max(0, now.Sub(g.last)))/float64(GlobalEvery))
	g.last = now
	if g.tokens < 1 {
		g.dropped++ // the client keeps its token: the line was not its to lose
		return false, 0
	}
	g.tokens--
	b.tokens--
	d := b.dropped + g.dropped
	b.dropped, g.dropped = 0, 0
	return true, d
}

// ErrorLog returns a *log.Logger for a server's own error log (http.Server.ErrorLog, grpc-go's
// logger) that writes each line to h at level, cleaned as Handler cleans it, and at most l's
// rate per client: the address net/http puts after "from " in a line (a TLS handshake error,
// a malformed request), or one shared bucket for lines that name none. Unlimited, 3,000 failed
// TLS handshakes write 519 KB of log (measured); limited, a client's lines stop after l's
// burst, and its next allowed line says how many were dropped.
func ErrorLog(h slog.Handler, level slog.Level, l *Limiter) *log.Logger {
	return log.New(&errorWriter{h: Handler(h), level: level, l: l}, "", 0)
}

type errorWriter struct {
	h     slog.Handler
	level slog.Level
	l     *Limiter
}

func (w *errorWriter) Write(p []byte) (int, error) {
	msg := strings.TrimRight(string(p), "\n")
	client := ""
	if i := strings.Index(msg, " from "); i >= 0 {
		rest := msg[i+len(" from "):]
		if j := strings.IndexAny(rest, " ,;"); j >= 0 {
			rest = rest[:j]
		}
		client = strings.TrimSuffix(rest, ":")
	}
	ok, dropped := w.l.Allow(client)
	if !ok {
		return len(p), nil
	}
	r := slog.NewRecord(time.Now(), w.level, msg, 0)
	if dropped > 0 {
		r.AddAttrs(slog.Int64("dropped", dropped))
	}
	_ = w.h.Handle(context.Background(), r)
	return len(p), nil
}

// TerminalWriter returns w escaping, in each Write, every control character but the newline and
// the tab (Terminal's escaping): for text made of many untrusted pieces (a summary of names,
// labels and a target's error messages), so that no piece forgotten by its printer reaches the
// terminal raw. Each Write must hold whole characters (fmt's and tabwriter's do).
func TerminalWriter(w io.Writer) io.Writer {
	if t, ok := w.(terminalWriter); ok {
		return t
	}
	return terminalWriter{w}
}

type terminalWriter struct{ w io.Writer }

func unsafeRune(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 || r == utf8.RuneError
}

func (t terminalWriter) Write(p []byte) (int, error) {
	if !bytes.ContainsFunc(p, unsafeRune) {
		return t.w.Write(p)
	}
	out := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		if !unsafeRune(r) || r == utf8.RuneError && n == 3 { // U+FFFD itself is printable
			out = append(out, p[i:i+n]...)
		} else {
			out = append(out, Terminal(string(p[i:i+n]))...)
		}
		i += n
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
