package scenario

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// varEnv is an Env whose every variable has one value.
type varEnv string

func (v varEnv) Var(int) string { return string(v) }
func (varEnv) UserID() int      { return 7 }
func (varEnv) IterNum() int64   { return 3 }
func (varEnv) Draws() *Draws    { return (&Scenario{}).NewDraws(0, 0) }

// checkRegex parses a one-request scenario whose check regex is pattern, after setting uid.
func checkRegex(t testing.TB, pattern string) *Pattern {
	t.Helper()
	sc, err := Parse("t.yaml", []byte("name: t\nflow:\n  - set: {uid: \"uid:{{user}}\"}\n  - request:\n      url: /home\n"+
		"      check: {regex: '"+pattern+"'}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sc.Steps[1].Request.Check.Regex[0]
}

// A check regex interpolates {{var}} like contains does, with the value quoted: the home-page
// marker both tradebench ("Welcome uid:1") and DayTrader ("Welcome\n &nbsp;uid:1,") render
// matches the user's own id and no other. Mutants caught: the regex taken literally (the old
// behaviour: "{{uid}}" is then literal text and nothing matches), the value inserted unquoted
// ("uid:1.5" then matches "uid:1x5"), and a cache keyed by the pattern source instead of the
// rendered pattern (the second user's check then runs the first user's regex).
func TestRegexCheckInterpolatesQuoted(t *testing.T) {
	p := checkRegex(t, `Welcome(\s|&nbsp;|(?i:<br\s*/?>))*{{uid}}\b`)
	cases := []struct {
		uid, body string
		want      bool
	}{
		{"uid:1", "<p>Welcome uid:1</p>", true},
		{"uid:1", "<B>Welcome\n        &nbsp;uid:1,\n</B>", true},
		{"uid:1", "Welcome<br>\n&nbsp;uid:1,", true},
		{"uid:1", "<B>Welcome<BR/>\n &nbsp;uid:1,", true},
		{"uid:1", "Welcome uid:12,", false}, // another user's id that starts with this one
		{"uid:2", "<p>Welcome uid:1</p>", false},
		{"uid:1.5", "Welcome uid:1.5,", true},
		{"uid:1.5", "Welcome uid:1x5,", false}, // "." is quoted, not "any character"
		{"a+b", "Welcome a+b ", true},
		{"a+b", "Welcome aab ", false},
	}
	var buf []byte
	for _, c := range cases {
		var re *regexp.Regexp
		re, buf = p.Regexp(varEnv(c.uid), buf)
		if got := re.MatchString(c.body); got != c.want {
			t.Errorf("uid %q, body %q: match %v, want %v (regex %s)", c.uid, c.body, got, c.want, re)
		}
	}
}

// not_contains interpolates too: a page that names another user passes, one that names the
// virtual user's own id fails.
func TestNotContainsInterpolates(t *testing.T) {
	sc, err := Parse("t.yaml", []byte("name: t\nflow:\n  - set: {uid: \"uid:{{user}}\"}\n  - request:\n      url: /home\n"+
		"      check: {not_contains: 'Welcome {{uid}}'}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := sc.Steps[1].Request.Check.NotContains[0].String(varEnv("uid:4"))
	if got != "Welcome uid:4" {
		t.Errorf("not_contains renders %q, want %q", got, "Welcome uid:4")
	}
}

// A pattern without holes is compiled once at load; one with holes once per distinct rendered
// pattern, and the cache stays bounded however many user ids a run goes through.
func TestRegexCheckCompiledOnceAndBounded(t *testing.T) {
	konst := checkRegex(t, `Welcome \w+`)
	a, _ := konst.Regexp(varEnv("x"), nil)
	b, _ := konst.Regexp(varEnv("y"), nil)
	if a != b || konst.cache != nil {
		t.Errorf("a constant pattern is not compiled once: %p %p", a, b)
	}
	p := checkRegex(t, `Welcome {{uid}}`)
	a, _ = p.Regexp(varEnv("uid:1"), nil)
	b, _ = p.Regexp(varEnv("uid:1"), nil)
	c, _ := p.Regexp(varEnv("uid:2"), nil)
	if a != b || a == c {
		t.Errorf("cache: same value %p %p, other value %p", a, b, c)
	}
	for i := range patternCacheMax + 10 {
		p.Regexp(varEnv(fmt.Sprintf("uid:%d", i)), nil)
	}
	if n := len(p.cache); n > patternCacheMax || n == 0 {
		t.Errorf("cache holds %d regexes, bound %d", n, patternCacheMax)
	}
}

// A pattern that is not a regex once its holes are filled fails at load, with its line.
func TestRegexCheckBadPatternWithVar(t *testing.T) {
	_, err := Parse("t.yaml", []byte("name: t\nflow:\n  - set: {uid: x}\n  - request:\n      url: /home\n      check: {regex: '({{uid}}'}\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), "line 6: check regex") {
		t.Fatalf("err = %v, want line 6: check regex", err)
	}
	_, err = Parse("t.yaml", []byte("name: t\nflow:\n  - request:\n      url: /home\n      check: {regex: 'Welcome {{nosuch}}'}\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown variable "nosuch"`) {
		t.Fatalf("err = %v, want unknown variable", err)
	}
}

// The per-check cost of a regex check on a 4 KiB page: a constant pattern, a pattern with a
// variable whose compiled regex is cached, and (for scale) compiling it on every check.
func BenchmarkRegexCheck(b *testing.B) {
	body := []byte(strings.Repeat("<td>filler text of a page</td>\n", 128) + "<p>Welcome uid:4711</p>")
	run := func(b *testing.B, p *Pattern) {
		var buf []byte
		var re *regexp.Regexp
		b.ReportAllocs()
		for b.Loop() {
			re, buf = p.Regexp(varEnv("uid:4711"), buf)
			if !re.Match(body) {
				b.Fatal("no match")
			}
		}
	}
	b.Run("const", func(b *testing.B) { run(b, checkRegex(b, `Welcome(\s|&nbsp;)*uid:4711\b`)) })
	b.Run("var-cached", func(b *testing.B) { run(b, checkRegex(b, `Welcome(\s|&nbsp;)*{{uid}}\b`)) })
	b.Run("var-compile-each", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			re := regexp.MustCompile(`Welcome(\s|&nbsp;)*` + regexp.QuoteMeta("uid:4711") + `\b`)
			if !re.Match(body) {
				b.Fatal("no match")
			}
		}
	})
}

// Virtual users share a pattern: concurrent lookups, compilations and cache resets are safe
// (run with -race) and every user gets its own value's regex.
func TestRegexCheckConcurrent(t *testing.T) {
	p := checkRegex(t, `Welcome {{uid}}\b`)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			var buf []byte
			for i := range patternCacheMax / 2 {
				uid := fmt.Sprintf("uid:%d", g*patternCacheMax+i)
				var re *regexp.Regexp
				re, buf = p.Regexp(varEnv(uid), buf)
				if !re.MatchString("Welcome "+uid+",") || re.MatchString("Welcome "+uid+"0,") {
					t.Errorf("user %s got regex %s", uid, re)
					return
				}
			}
		})
	}
	wg.Wait()
}
