package scenario

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/scenarios"
)

type env struct {
	vars []string
	user int
	iter int64
	d    *Draws
}

func (e *env) Var(i int) string { return e.vars[i] }
func (e *env) UserID() int      { return e.user }
func (e *env) IterNum() int64   { return e.iter }
func (e *env) Draws() *Draws {
	if e.d == nil {
		e.d = (&Scenario{}).NewDraws(1, e.user)
	}
	return e.d
}

func TestBuiltinsParse(t *testing.T) {
	for _, name := range scenarios.Names() {
		data, _ := scenarios.Get(name)
		sc, err := Parse(name, data, Options{RunID: "r1"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sc.Name != name || sc.Think != (Think{Kind: ThinkAround, A: time.Second}) {
			t.Errorf("%s: name %q think %v", name, sc.Name, sc.Think)
		}
		if _, ok := sc.Param("users"); !ok {
			t.Errorf("%s: no users parameter", name)
		}
	}
	if len(scenarios.Names()) != 3 {
		t.Errorf("built-ins: %v", scenarios.Names())
	}
}

func TestStocktraderIsThe2007Papers19Steps(t *testing.T) {
	data, _ := scenarios.Get("stocktrader")
	sc, err := Parse("stocktrader", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, st := range sc.Steps {
		if st.Kind == StepRequest {
			names = append(names, st.Request.Name)
		}
	}
	want := "login quotes quotes portfolio account home logout register portfolio buy home buy account quotes buy buy portfolio home logout"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("flow:\n got %s\nwant %s", got, want)
	}
}

func TestParamsOverride(t *testing.T) {
	data, _ := scenarios.Get("stocktrader")
	sc, err := Parse("stocktrader", data, Options{Params: map[string]string{"users": "7", "quotes": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := sc.Param("users"); v != "7" {
		t.Errorf("users = %q", v)
	}
	// the folded range now draws from 0..6
	login := sc.Steps[1].Request
	e := &env{vars: make([]string, len(sc.Vars)), d: sc.NewDraws(1, 0)}
	sc.Steps[0].Sets[0].Value.Append(nil, e)
	for i := 0; i < 200; i++ {
		v := sc.Steps[0].Sets[0].Value.String(e)
		if v < "uid:0" || v > "uid:6" || len(v) != 5 {
			t.Fatalf("uid %q outside uid:0..uid:6", v)
		}
	}
	if login.Method != "POST" || len(login.Form) != 3 {
		t.Errorf("login: %s %d form fields", login.Method, len(login.Form))
	}
	if _, err := Parse("stocktrader", data, Options{Params: map[string]string{"usres": "7"}}); err == nil ||
		!strings.Contains(err.Error(), `unknown parameter "usres"`) {
		t.Errorf("misspelt parameter: %v", err)
	}
	if _, err := Parse("stocktrader", data, Options{Params: map[string]string{"users": "lots"}}); err == nil ||
		!strings.Contains(err.Error(), "not an integer") {
		t.Errorf("non-numeric range parameter: %v", err)
	}
}

func TestTemplates(t *testing.T) {
	c := &compiler{params: map[string]string{"n": "5", "name": "a b&c", "run": "R"}, slots: map[string]int{"v": 0}, counters: map[string]*atomic.Int64{}}
	s := scope{c, set{"v": true}}
	e := &env{vars: []string{"x/y z"}, user: 7, iter: 3}
	cases := []struct{ src, want, wantQ string }{
		{"plain", "plain", "plain"},
		{"/p?q={{name}}", "/p?q=a b&c", "%2Fp%3Fq%3Da+b%26c"},
		{"{{v}}-{{user}}-{{iter}}-{{run}}", "x/y z-7-3-R", "x%2Fy+z-7-3-R"},
		{"{3..4}", "3", "3"},
		{"{{rand 2 3}}", "2", "2"},
		{"a{b}c{1.}", "a{b}c{1.}", "a%7Bb%7Dc%7B1.%7D"}, // not a range: left as text
	}
	for _, tc := range cases {
		tp, err := compileTemplate(tc.src, s)
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if got := tp.String(e); got != tc.want {
			t.Errorf("%q renders %q, want %q", tc.src, got, tc.want)
		}
		if got := string(tp.AppendQuery(nil, e)); got != tc.wantQ {
			t.Errorf("%q query-escaped %q, want %q", tc.src, got, tc.wantQ)
		}
	}
	if tp, _ := compileTemplate("x{{n}}y", s); !tp.konst {
		t.Error("a template of literals and parameters should fold to a constant")
	}
	tp, _ := compileTemplate("{0..n}", s)
	seen := map[string]bool{}
	for i := 0; i < 500; i++ {
		seen[tp.String(e)] = true
	}
	if len(seen) != 5 || seen["5"] {
		t.Errorf("{0..n} with n=5 drew %v, want exactly 0..4", seen)
	}
	ctr, _ := compileTemplate("{{counter c}},{{counter c}}", s)
	if got := ctr.String(e) + ";" + ctr.String(e); got != "0,1;2,3" {
		t.Errorf("counter: %q", got)
	}
	for _, bad := range []string{"{{nope}}", "{{rand 1}}", "{{rand 5 5}}", "{{v", "{{}}", "{{rand 0 name}}", "{{frob x y}}", "{5..1}", "{1..x}"} {
		if _, err := compileTemplate(bad, s); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}

func TestThinkDistributions(t *testing.T) {
	for _, tc := range []struct {
		src  string
		kind ThinkKind
	}{{"1s", ThinkAround}, {"fixed:1s", ThinkFixed}, {"0.5s..1.5s", ThinkUniform}, {"exp:1s", ThinkExponential}, {"0", ThinkNone}} {
		th, err := ParseThink(tc.src)
		if err != nil || th.Kind != tc.kind {
			t.Fatalf("%q: %v %v", tc.src, th, err)
		}
		if back, _ := ParseThink(th.String()); back != th {
			t.Errorf("%q does not round-trip: %q", tc.src, th.String())
		}
	}
	for _, bad := range []string{"1", "soon", "2s..1s", "-1s", "exp:x", "1s..", "exp:-1s", "fixed:exp:1s", "fixed:1s..2s"} {
		if _, err := ParseThink(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	u, _ := ParseThink("0.5s..1.5s")
	rng := rand.New(rand.NewPCG(1, 2))
	var sum float64
	const n = 20000
	for i := 0; i < n; i++ {
		d := u.Sample(rng)
		if d < 500*time.Millisecond || d > 1500*time.Millisecond {
			t.Fatalf("uniform sample %v outside 0.5s..1.5s", d)
		}
		sum += d.Seconds()
	}
	if m := sum / n; math.Abs(m-1) > 0.02 {
		t.Errorf("uniform mean %.3fs, want 1s", m)
	}
	// the default: randomized around the mean, uniform in 50–150 % (LoadRunner's), never the
	// same pause for every user (mutant scripts/mutants.d/think-around-fixed: Sample returning
	// A — the spread assertion failed)
	a, _ := ParseThink("1s")
	sum = 0
	lo, hi := time.Hour, time.Duration(0)
	for i := 0; i < n; i++ {
		d := a.Sample(rng)
		if d < 500*time.Millisecond || d > 1500*time.Millisecond {
			t.Fatalf("randomized sample %v outside 0.5s..1.5s", d)
		}
		lo, hi = min(lo, d), max(hi, d)
		sum += d.Seconds()
	}
	if m := sum / n; math.Abs(m-1) > 0.02 || lo > 520*time.Millisecond || hi < 1480*time.Millisecond {
		t.Errorf("randomized think: mean %.3fs, range %v..%v; want 1s over 0.5s..1.5s", m, lo, hi)
	}
	if f, _ := ParseThink("fixed:1s"); f.Sample(rng) != time.Second {
		t.Error("fixed:1s is not exactly 1 s")
	}
	x, _ := ParseThink("exp:1s")
	sum = 0
	var over2 int
	for i := 0; i < n; i++ {
		d := x.Sample(rng)
		if d < 0 || d > 10*time.Second {
			t.Fatalf("exponential sample %v outside [0, 10×mean]", d)
		}
		sum += d.Seconds()
		if d > 2*time.Second {
			over2++
		}
	}
	// mean 1 s (standard error 1/sqrt(n) = 0.7%); P(X > 2 mean) = e^-2 = 13.5%
	if m := sum / n; math.Abs(m-1) > 0.04 {
		t.Errorf("exponential mean %.3fs, want 1s", m)
	}
	if f := float64(over2) / n; math.Abs(f-math.Exp(-2)) > 0.015 {
		t.Errorf("exponential P(>2×mean) = %.3f, want %.3f", f, math.Exp(-2))
	}
}

func TestBadScenarios(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"unknown field", "name: x\nflow:\n  - request:\n      url: /a\n      chek: {status: 200}\n", `line 5: unknown field "chek" in request`},
		{"unknown top field", "name: x\nflwo: []\n", `line 2: unknown field "flwo" in scenario`},
		{"unknown variable", "name: x\nflow:\n  - request: {url: '/a?u={{who}}'}\n",
			`line 3: request: url: template "/a?u={{who}}": unknown variable "who"`},
		{"used before set", "name: x\nflow:\n  - request: {url: '/a?h={{h}}'}\n  - request:\n      url: /b\n      extract: {h: 'id=(\\d+)'}\n",
			`variable "h" may be used before it is set`},
		{"set in one branch only", "name: x\nflow:\n  - choice:\n      - weight: 1\n        steps: [{set: {a: '1'}}]\n      - weight: 1\n" +
			"        steps: [{think: 1s}]\n  - request: {url: '/{{a}}'}\n", `variable "a" may be used before it is set`},
		{"bad regex", "name: x\nflow:\n  - request:\n      url: /a\n      check: {regex: '(('}\n", "line 5: check regex"},
		{"bad extract regex", "name: x\nflow:\n  - request:\n      url: /a\n      extract: {h: '(('}\n", "line 5: extract h"},
		{"group out of range", "name: x\nflow:\n  - request:\n      url: /a\n      extract: {h: {regex: 'a(b)', group: 2}}\n",
			"group 2, but the regex has 1"},
		{"two kinds", "name: x\nflow:\n  - request: {url: /a}\n    think: 1s\n", "line 3: a step is exactly one of"},
		{"no kind", "name: x\nflow:\n  - {}\n", "a step is exactly one of"},
		{"bad think", "name: x\nthink: fast\nflow:\n  - request: {url: /a}\n", `think time "fast"`},
		{"no name", "flow:\n  - request: {url: /a}\n", "needs a name"},
		{"no flow", "name: x\n", "no flow"},
		{"no url", "name: x\nflow:\n  - request: {name: a}\n", "line 3: request: url is required"},
		{"relative url", "name: x\nflow:\n  - request: {url: a/b}\n", "must be a path starting with /"},
		{"zero weight", "name: x\nflow:\n  - choice:\n      - weight: 0\n        steps: [{request: {url: /a}}]\n",
			"line 4: a choice branch needs a positive weight"},
		{"bad status", "name: x\nflow:\n  - request: {url: /a, check: {status: 2000}}\n", "2000 is not an HTTP status"},
		{"driver header", "name: x\nflow:\n  - request: {url: /a, headers: {Host: x}}\n", "header Host is set by the driver"},
		{"think in transaction", "name: x\nflow:\n  - transaction: t\n    steps:\n      - request: {url: /a}\n      - think: 1s\n",
			"a transaction holds only request and set"},
		{"else in transaction", "name: x\nflow:\n  - transaction: t\n    steps:\n" +
			"      - request: {url: /a, extract: {h: {regex: 'x', else: [{stop: true}]}}}\n", "else is not allowed inside a transaction"},
		{"form and body", "name: x\nflow:\n  - request: {url: /a, form: {a: b}, body: x}\n", "form or body, not both"},
		{"bad count", "name: x\nflow:\n  - repeat: [3, 1]\n    steps: [{request: {url: /a}}]\n", "count must be"},
		{"reserved var", "name: x\nflow:\n  - set: {user: '1'}\n", `variable name "user"`},
		{"yaml syntax", "name: x\nflow:\n  - request: {url: /a\n", "did not find expected"},
		{"duplicate key", "name: x\nflow:\n  - request: {url: /a, url: /b}\n", `"url" appears twice`},
	}
	for _, tc := range cases {
		_, err := Parse("f.yaml", []byte(tc.yaml), Options{})
		if err == nil {
			t.Errorf("%s: parsed", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "f.yaml: ") {
			t.Errorf("%s: error %q does not contain %q", tc.name, err, tc.want)
		}
	}
}

func TestFullFormat(t *testing.T) {
	src := `
name: full
params: {base: /x, n: 10}
think: exp:2s
headers: {X-Run: "{{run}}", Accept: text/html}
flow:
  - set:
      a: "{0..n}"
      list: {value: "s:{0..n}", repeat: [1, 3], join: ","}
  - request:
      name: first
      url: "{{base}}/p"
      query: {z: "1", a: "{{a}}"}
      headers: {Accept: "*/*"}
      think: 0.1s..0.2s
      check: {status: [200, 201], contains: [ok, "{{a}}"], not_contains: error, regex: 'id=\d+', min_bytes: 5}
      extract:
        id: {regex: 'id=(\d+)', pick: max}
        all: 'id=\d+'
  - transaction: pair
    steps:
      - request: {url: "/q?id={{id}}", method: put, body: "{{all}}"}
      - set: {b: "{{id}}"}
      - request: {url: "/r/{{b}}", follow_redirects: false}
  - repeat: [0, 2]
    steps:
      - choice:
          - {name: one, weight: 3, steps: [{request: {url: /one}}]}
          - {name: two, weight: 1, steps: [{stop: true}]}
`
	sc, err := Parse("full.yaml", []byte(src), Options{RunID: "RID"})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Think.Kind != ThinkExponential || len(sc.Steps) != 4 {
		t.Fatalf("think %v, %d steps", sc.Think, len(sc.Steps))
	}
	r := sc.Steps[1].Request
	if r.Name != "first" || r.Method != "GET" || !r.NeedBody || len(r.Check.Status) != 2 || r.Check.MinBytes != 5 {
		t.Errorf("request: %+v", r)
	}
	if u, ok := r.URL.Const(); !ok || u != "/x/p" {
		t.Errorf("url folded to %q %v", u, ok)
	}
	if len(r.Query) != 2 || r.Query[0].Key != "z" || r.Query[1].Key != "a" {
		t.Errorf("query order: %+v", r.Query)
	}
	var hs []string
	for _, h := range r.Header {
		hs = append(hs, h.Key+"="+h.Val.Source())
	}
	if strings.Join(hs, " ") != "X-Run={{run}} Accept=*/*" {
		t.Errorf("headers: %v (scenario headers, then the request's replacing)", hs)
	}
	if r.Think == nil || r.Think.Kind != ThinkUniform {
		t.Errorf("request think: %v", r.Think)
	}
	if len(r.Extract) != 2 || r.Extract[0].Pick != PickMax || r.Extract[0].Group != 1 || r.Extract[1].Group != 0 {
		t.Errorf("extract: %+v", r.Extract)
	}
	tx := sc.Steps[2]
	if tx.Kind != StepTransaction || tx.Name != "pair" || len(tx.Steps) != 3 || tx.Steps[0].Request.Method != "PUT" ||
		tx.Steps[2].Request.FollowRedirects {
		t.Errorf("transaction: %+v", tx)
	}
	rp := sc.Steps[3]
	if rp.Kind != StepRepeat || rp.Min != 0 || rp.Max != 2 || rp.Steps[0].TotalWeight != 4 {
		t.Errorf("repeat: %+v", rp)
	}
}
