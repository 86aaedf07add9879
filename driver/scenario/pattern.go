package scenario

import (
	"regexp"
	"strings"
	"sync"
)

// A Pattern is a check's regex. It may hold template holes like any other template
// (`Welcome(\s|&nbsp;)*{{uid}}\b`): a hole's value is inserted quoted (regexp.QuoteMeta), so a
// user id such as "uid:1.5" matches itself, not "uid:1x5", while the text around the holes is
// regex syntax as written.
//
// A pattern without holes is compiled once when the scenario loads. One with holes is compiled
// per distinct rendered pattern and cached, so a virtual user that checks its own user id on
// every home page compiles that regex once; the cache is bounded (patternCacheMax) because a
// run over 500,000 user ids would otherwise keep 500,000 compiled regexes.
type Pattern struct {
	src   string
	tmpl  *Template
	konst *regexp.Regexp // the compiled pattern when it has no holes

	mu    sync.RWMutex
	cache map[string]*regexp.Regexp
}

// patternCacheMax bounds a pattern's cache of compiled regexes. When full, the cache is emptied
// and refilled by the patterns in use now (virtual users' current sessions).
const patternCacheMax = 4096

// compilePattern compiles a check regex: the template holes, then the regex syntax, checked with
// a sample value in every hole so a bad pattern fails at load time with its line.
func compilePattern(src string, r resolver) (*Pattern, error) {
	t, err := compileTemplate(src, r)
	if err != nil {
		return nil, err
	}
	p := &Pattern{src: src, tmpl: t}
	if s, ok := t.Const(); ok {
		if p.konst, err = regexp.Compile(s); err != nil {
			return nil, err
		}
		return p, nil
	}
	if _, err := regexp.Compile(string(t.AppendRegex(nil, sampleEnv{}))); err != nil {
		return nil, err
	}
	p.cache = map[string]*regexp.Regexp{}
	return p, nil
}

// sampleEnv renders every variable as "x", to check a pattern's syntax before any value exists.
type sampleEnv struct{}

func (sampleEnv) Var(int) string { return "x" }
func (sampleEnv) UserID() int    { return 0 }
func (sampleEnv) IterNum() int64 { return 0 }

// Draws gives a random range in a pattern a value; a unique draw is refused outside set: when the
// scenario loads, so none reaches here.
func (sampleEnv) Draws() *Draws { return (&Scenario{}).NewDraws(0, 0) }

// Source is the pattern as written.
func (p *Pattern) Source() string { return p.src }

// Regexp returns the pattern compiled for env's current values. buf is scratch space for the
// rendered pattern (returned grown, for reuse); the result is shared and must not be modified.
func (p *Pattern) Regexp(env Env, buf []byte) (*regexp.Regexp, []byte) {
	if p.konst != nil {
		return p.konst, buf
	}
	buf = p.tmpl.AppendRegex(buf[:0], env)
	p.mu.RLock()
	re := p.cache[string(buf)] // no allocation: the compiler recognises a map lookup by string(bytes)
	p.mu.RUnlock()
	if re != nil {
		return re, buf
	}
	key := string(buf)
	// The holes' values are quoted and the rest compiled at load time, so this cannot fail; if it
	// somehow did, a pattern matching nothing makes the check fail rather than the driver panic.
	re, err := regexp.Compile(key)
	if err != nil {
		re = neverMatches
	}
	p.mu.Lock()
	if len(p.cache) >= patternCacheMax {
		clear(p.cache)
	}
	p.cache[key] = re
	p.mu.Unlock()
	return re, buf
}

// neverMatches is a regex no text matches.
var neverMatches = regexp.MustCompile(`[^\x00-\x{10FFFF}]`)

// AppendRegex renders t onto dst as a regex: literal text as written, each hole's value quoted
// with regexp.QuoteMeta.
func (t *Template) AppendRegex(dst []byte, env Env) []byte {
	for i := range t.segs {
		s := &t.segs[i]
		if s.kind == segLit {
			dst = append(dst, s.lit...)
			continue
		}
		start := len(dst)
		dst = quoteMetaFrom(s.appendDynamic(dst, env, false), start)
	}
	return dst
}

// regexSpecial is what regexp.QuoteMeta escapes.
const regexSpecial = `\.+*?()|[]{}^$`

// quoteMetaFrom quotes dst[start:] as regexp.QuoteMeta does, in place; it allocates only when
// the value holds a special character (user ids and numbers do not).
func quoteMetaFrom(dst []byte, start int) []byte {
	n := 0
	for _, c := range dst[start:] {
		if strings.IndexByte(regexSpecial, c) >= 0 {
			n++
		}
	}
	if n == 0 {
		return dst
	}
	val := append([]byte(nil), dst[start:]...)
	dst = dst[:start]
	for _, c := range val {
		if strings.IndexByte(regexSpecial, c) >= 0 {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return dst
}
