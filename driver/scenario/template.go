package scenario

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
)

// A Template is a string with holes, compiled once when the scenario loads into segments that
// render by appending to a buffer: no parsing and no text/template per request.
//
// Holes:
//
//	{{name}}          a parameter (folded to text at load), a variable, or user / iter / run
//	{{rand A B}}      a uniform random integer A <= x < B; A and B are numbers or parameters
//	{A..B}            the same, shorter: uid:{0..users} is one of the loaded accounts uid:0 … uid:users-1
//	{unique A..B}     (set values only) a value of A..B that no other virtual user holds at
//	{{unique A B}}    that moment, held until the user's iteration ends (see unique.go)
//	{{counter NAME}}  a run-wide counter: 0, 1, 2, … shared by every virtual user
//	{{pick A B …}}    one of the words A, B, … at random (k6's and Gatling's random pick)
//	{{row.COLUMN}}    the column of the user's data row (Options.Data, see Feed)
//
// Random values come from the user's own stream (Env.Draws), so a seed reproduces them.
type Template struct {
	segs  []seg
	src   string
	konst bool
}

type segKind uint8

const (
	segLit segKind = iota
	segVar
	segRand
	segCounter
	segUser
	segIter
	segUnique
	segPick
	segRow
)

type seg struct {
	kind   segKind
	lit    string // segLit: the text; others: unused
	esc    string // segLit: the text query-escaped
	slot   int    // segVar; segUnique: the draw
	lo, hi int64  // segRand
	ctr    *atomic.Int64
	picks  []string // segPick: the words
	feed   *Feed    // segRow: the rows (slot: the column)
}

// Env is what a template reads while rendering: the user's variables, identity and random state.
type Env interface {
	Var(slot int) string
	UserID() int
	IterNum() int64
	Draws() *Draws
}

// Source is the template's text as written.
func (t *Template) Source() string { return t.src }

// Literal is a template without holes: s sent exactly as given, braces and all (quick mode's
// --body, which may be any bytes).
func Literal(s string) *Template {
	t := &Template{src: s, konst: true}
	if s != "" {
		t.segs = []seg{{kind: segLit, lit: s, esc: string(AppendQueryEscape(nil, s))}}
	}
	return t
}

// Const reports whether the template renders the same text every time, and that text.
func (t *Template) Const() (string, bool) {
	if !t.konst {
		return "", false
	}
	if len(t.segs) == 0 {
		return "", true
	}
	return t.segs[0].lit, true
}

// Append renders t onto dst.
func (t *Template) Append(dst []byte, env Env) []byte {
	for i := range t.segs {
		s := &t.segs[i]
		switch s.kind {
		case segLit:
			dst = append(dst, s.lit...)
		default:
			dst = s.appendDynamic(dst, env, false)
		}
	}
	return dst
}

// AppendQuery renders t onto dst escaped as a URL query or form value.
func (t *Template) AppendQuery(dst []byte, env Env) []byte {
	for i := range t.segs {
		s := &t.segs[i]
		switch s.kind {
		case segLit:
			dst = append(dst, s.esc...)
		default:
			dst = s.appendDynamic(dst, env, true)
		}
	}
	return dst
}

// String renders t to a string.
func (t *Template) String(env Env) string {
	if s, ok := t.Const(); ok {
		return s
	}
	return string(t.Append(nil, env))
}

func (s *seg) appendDynamic(dst []byte, env Env, escape bool) []byte {
	switch s.kind {
	case segVar:
		v := env.Var(s.slot)
		if escape {
			return AppendQueryEscape(dst, v)
		}
		return append(dst, v...)
	case segRand:
		return strconv.AppendInt(dst, s.lo+env.Draws().R.Int64N(s.hi-s.lo), 10)
	case segUnique:
		return strconv.AppendInt(dst, env.Draws().take(s.slot), 10)
	case segCounter:
		return strconv.AppendInt(dst, s.ctr.Add(1)-1, 10)
	case segPick:
		v := s.picks[env.Draws().R.IntN(len(s.picks))]
		if escape {
			return AppendQueryEscape(dst, v)
		}
		return append(dst, v...)
	case segRow:
		v := s.feed.row(env)[s.slot]
		if escape {
			return AppendQueryEscape(dst, v)
		}
		return append(dst, v...)
	case segUser:
		return strconv.AppendInt(dst, int64(env.UserID()), 10)
	case segIter:
		return strconv.AppendInt(dst, env.IterNum(), 10)
	}
	return dst
}

// AppendQueryEscape appends s escaped as url.QueryEscape does (space as +).
func AppendQueryEscape(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			dst = append(dst, c)
		case c == ' ':
			dst = append(dst, '+')
		default:
			dst = append(dst, '%', hex[c>>4], hex[c&15])
		}
	}
	return dst
}

// resolver answers what a name in a template means while compiling.
type resolver interface {
	param(name string) (string, bool)
	variable(name string) (slot int, err error) // err: unknown, or not yet set on this path
	counter(name string) *atomic.Int64
	// unique registers a unique draw of [lo, hi), written as src.
	unique(src string, lo, hi int64) (slot int, err error)
	feed() *Feed   // the data rows {{row.COLUMN}} reads (nil: none)
	names() string // what is defined, for error messages
}

var rangeRE = regexp.MustCompile(`^\{(unique +)?(-?\d+|[A-Za-z_]\w*)\.\.(-?\d+|[A-Za-z_]\w*)\}`)

// compileTemplate parses src into segments, folding parameters to text.
func compileTemplate(src string, r resolver) (*Template, error) {
	t := &Template{src: src}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.segs = append(t.segs, seg{kind: segLit, lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(src); {
		if strings.HasPrefix(src[i:], "{{") {
			end := strings.Index(src[i+2:], "}}")
			if end < 0 {
				return nil, fmt.Errorf("template %q: {{ without a closing }}", src)
			}
			fields := strings.Fields(src[i+2 : i+2+end])
			i += end + 4
			if len(fields) == 0 {
				return nil, fmt.Errorf("template %q: empty {{}}", src)
			}
			s, text, err := compileTag(fields, r)
			if err != nil {
				return nil, fmt.Errorf("template %q: %w", src, err)
			}
			if s == nil {
				lit.WriteString(text)
				continue
			}
			flush()
			t.segs = append(t.segs, *s)
			continue
		}
		if src[i] == '{' {
			if m := rangeRE.FindStringSubmatch(src[i:]); m != nil {
				var s *seg
				lo, err := intArg(m[2], r)
				if err == nil {
					var hi int64
					hi, err = intArg(m[3], r)
					if err == nil {
						s, err = rangeSeg(m[0], m[1] != "", lo, hi, r)
					}
					if err == nil {
						flush()
						t.segs = append(t.segs, *s)
						i += len(m[0])
						continue
					}
				}
				return nil, fmt.Errorf("template %q: %s: %w", src, m[0], err)
			}
		}
		lit.WriteByte(src[i])
		i++
	}
	flush()
	t.konst = len(t.segs) == 0 || (len(t.segs) == 1 && t.segs[0].kind == segLit)
	for i := range t.segs {
		if t.segs[i].kind == segLit {
			t.segs[i].esc = string(AppendQueryEscape(nil, t.segs[i].lit))
		}
	}
	return t, nil
}

func checkRange(lo, hi int64) error {
	if hi <= lo {
		return fmt.Errorf("empty range: the upper bound %d is exclusive and must be above the lower bound %d", hi, lo)
	}
	return nil
}

// rangeSeg is a random draw of [lo, hi), unique among the users or not.
func rangeSeg(src string, unique bool, lo, hi int64, r resolver) (*seg, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, err
	}
	if !unique {
		return &seg{kind: segRand, lo: lo, hi: hi}, nil
	}
	slot, err := r.unique(src, lo, hi)
	if err != nil {
		return nil, err
	}
	return &seg{kind: segUnique, slot: slot}, nil
}

func compileTag(f []string, r resolver) (*seg, string, error) {
	switch f[0] {
	case "rand", "unique":
		if len(f) != 3 {
			return nil, "", fmt.Errorf("%s takes two bounds: {{%s 0 users}}", f[0], f[0])
		}
		lo, err := intArg(f[1], r)
		if err != nil {
			return nil, "", err
		}
		hi, err := intArg(f[2], r)
		if err != nil {
			return nil, "", err
		}
		s, err := rangeSeg("{{"+strings.Join(f, " ")+"}}", f[0] == "unique", lo, hi, r)
		return s, "", err
	case "counter":
		if len(f) != 2 {
			return nil, "", fmt.Errorf("counter takes a name: {{counter reg}}")
		}
		return &seg{kind: segCounter, ctr: r.counter(f[1])}, "", nil
	case "pick":
		if len(f) < 2 {
			return nil, "", fmt.Errorf("pick takes the words to pick from: {{pick buy sell}}")
		}
		return &seg{kind: segPick, picks: append([]string(nil), f[1:]...)}, "", nil
	}
	if len(f) != 1 {
		return nil, "", fmt.Errorf("unknown function %q (known: rand, unique, counter, pick)", f[0])
	}
	name := f[0]
	switch name {
	case "user":
		return &seg{kind: segUser}, "", nil
	case "iter":
		return &seg{kind: segIter}, "", nil
	}
	if col, ok := strings.CutPrefix(name, "row."); ok {
		f := r.feed()
		i, err := f.column(col)
		if err != nil {
			return nil, "", err
		}
		return &seg{kind: segRow, feed: f, slot: i}, "", nil
	}
	if v, ok := r.param(name); ok {
		return nil, v, nil
	}
	slot, err := r.variable(name)
	if err != nil {
		return nil, "", err
	}
	return &seg{kind: segVar, slot: slot}, "", nil
}

func intArg(s string, r resolver) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	v, ok := r.param(s)
	if !ok {
		return 0, fmt.Errorf("%q is neither a number nor a parameter (%s)", s, r.names())
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parameter %s=%q is used as a number but is not an integer", s, v)
	}
	return n, nil
}
