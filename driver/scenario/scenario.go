// Package scenario loads load-test scenarios: YAML files (the built-ins are the same format,
// embedded) describing named transactions of templated HTTP requests, think times, checks,
// extraction into variables, random values (unique among the users, if asked: unique.go),
// counters, weighted choices and repeats. Loading compiles everything once — templates into
// segments, regexes, variable slots — and rejects a bad file with its line number: unknown
// fields, unknown variables, variables used before they can have been set, bad regexes, bad
// think times. Executing a scenario is driver/vuser's job.
package scenario

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/tradebench/tradebench/internal/suggest"
	"github.com/tradebench/tradebench/internal/untrusted"
)

// Scenario is a compiled scenario, ready to execute.
type Scenario struct {
	Name        string
	Description string
	Source      string  // the file or built-in it came from
	Content     []byte  // the scenario as read (its hash goes in the results' disclosure)
	Params      []Param // effective parameter values, in declaration order
	Think       Think   // the default pause after each transaction
	Steps       []*Step // one iteration
	Vars        []string
	counters    map[string]*atomic.Int64
	pools       []*pool // unique ranges
	draws       []*pool // by unique draw slot
}

// Param is one scenario parameter and its effective value.
type Param struct{ Name, Value string }

// Param returns a parameter's effective value.
func (s *Scenario) Param(name string) (string, bool) {
	for _, p := range s.Params {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// StepKind says what a step does.
type StepKind uint8

const (
	StepRequest     StepKind = iota // one HTTP request, its own transaction
	StepTransaction                 // several requests timed as one named transaction
	StepSet                         // assign variables
	StepThink                       // pause now
	StepChoice                      // run one branch, picked by weight
	StepRepeat                      // run steps a (random) number of times
	StepStop                        // end the iteration
)

// Step is one compiled step.
type Step struct {
	Kind    StepKind
	Line    int
	Request *Request // StepRequest
	Name    string   // StepTransaction
	Steps   []*Step  // StepTransaction, StepRepeat
	Sets    []Set    // StepSet
	Think   Think    // StepThink
	// StepChoice: branches and the sum of their weights.
	Branches    []Branch
	TotalWeight int
	// StepRepeat: the count is uniform in [Min, Max].
	Min, Max int
}

// Branch is one weighted alternative of a choice.
type Branch struct {
	Name   string
	Weight int
	Steps  []*Step
}

// Set assigns a variable: Value rendered once, or Repeat times joined by Join.
type Set struct {
	Slot       int
	Var        string
	Value      *Template
	Min, Max   int // repetitions (both 1 for a plain value)
	Join       string
	IsRepeated bool
	// Unique: Value makes a unique draw (a value held until the iteration ends; see Draws).
	Unique bool
}

// Request is one compiled HTTP request.
type Request struct {
	Name   string
	Method string
	Line   int
	URL    *Template // an absolute path (/…) or an absolute http(s) URL
	Query  []Field
	Form   []Field
	Header []Field
	Body   *Template
	Check  Check
	// Extract runs in order after the checks pass.
	Extract []Extract
	// Think, if set, replaces the scenario's think time after this request.
	Think           *Think
	FollowRedirects bool
	// NeedBody: a check or extraction reads the body.
	NeedBody bool
}

// Field is a query parameter, form field or header.
type Field struct {
	Key string
	Val *Template
}

// Check is what a response must satisfy for its transaction to pass. With no Status list any
// final status below 400 passes.
type Check struct {
	Status []int
	// AnyStatus passes every final status: quick mode's one URL is measured as it answers, as
	// wrk, hey and oha measure it (a 401 or a 503 is an answer, counted by its status), while a
	// scenario's request checks what its flow needs. Not in the file format.
	AnyStatus   bool
	Contains    []*Template
	NotContains []*Template
	Regex       []*Pattern // may hold {{var}} holes, whose values are matched literally
	MinBytes    int64
}

// Extract takes a regex match from the body into a variable. With no match the transaction
// fails, unless Else is given: then Else runs and the rest of the enclosing steps are skipped
// (e.g. "a sell with nothing to sell becomes a buy").
type Extract struct {
	Slot  int
	Var   string
	Re    *regexp.Regexp
	Group int
	Pick  Pick
	Else  []*Step
}

// Pick chooses among several matches.
type Pick uint8

const (
	PickFirst Pick = iota
	PickLast
	PickRandom
	PickMax // the numerically largest: the newest of sequential ids (the 2009 paper's "most recent holding")
	PickMin
)

// Options adjust a scenario at load time.
type Options struct {
	// Params override the scenario's declared parameters (--set k=v). Unknown names are errors.
	Params map[string]string
	// RunID is the value of the built-in parameter run (unique per run, for unique new user ids).
	RunID string
	// Think, if non-nil, replaces the scenario's default think time (--think).
	Think *Think
	// Slice restricts unique draws to this driver's part of each range (agents).
	Slice Slice
	// Data are the rows {{row.COLUMN}} reads (nil: none).
	Data *Feed
}

// Parse compiles a scenario from YAML. name is used in error messages (a file name).
func Parse(name string, data []byte, opt Options) (*Scenario, error) {
	sc, err := parse(data, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sc.Source, sc.Content = name, data
	return sc, nil
}

func parse(data []byte, opt Options) (*Scenario, error) {
	var doc yaml.Node
	// bounded before decoding: an alias bomb is refused here, not expanded by Decode
	if err := untrusted.UnmarshalYAML(data, &doc); err != nil {
		return nil, tidyYAMLError(err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, fmt.Errorf("empty scenario")
	}
	var raw rawScenario
	if err := doc.Content[0].Decode(&raw); err != nil {
		return nil, tidyYAMLError(err)
	}
	if err := opt.Slice.validate(); err != nil {
		return nil, err
	}
	c := &compiler{
		params:   map[string]string{},
		slots:    map[string]int{},
		counters: map[string]*atomic.Int64{},
		slice:    opt.Slice,
		data:     opt.Data,
	}
	sc := &Scenario{Name: raw.Name, Description: raw.Description, counters: c.counters}
	if sc.Name == "" {
		return nil, fmt.Errorf("the scenario needs a name")
	}
	for _, p := range raw.Params {
		if !isIdent(p.Key) || reserved[p.Key] {
			return nil, fmt.Errorf("line %d: parameter name %q must be a plain identifier and not one of user, iter, run, rand, unique, counter", p.Line, p.Key)
		}
		c.params[p.Key] = p.Val
		c.order = append(c.order, p.Key)
	}
	for k, v := range opt.Params {
		if _, ok := c.params[k]; !ok {
			return nil, fmt.Errorf("unknown parameter %q%s (this scenario's parameters: %s)", k, suggest.DidYouMean(k, c.order), c.paramList())
		}
		c.params[k] = v
	}
	for _, k := range c.order {
		sc.Params = append(sc.Params, Param{k, c.params[k]})
	}
	c.params["run"] = opt.RunID
	if raw.Think != "" {
		t, err := ParseThink(raw.Think)
		if err != nil {
			return nil, err
		}
		sc.Think = t
	}
	if opt.Think != nil {
		sc.Think = *opt.Think
	}
	for _, h := range raw.Headers {
		c.headers = append(c.headers, h)
	}
	if len(raw.Flow) == 0 {
		return nil, fmt.Errorf("the scenario has no flow (a list of steps)")
	}
	declared := map[string]int{}
	collectVars(raw.Flow, declared)
	for v, line := range declared {
		if !isIdent(v) || reserved[v] {
			return nil, fmt.Errorf("line %d: variable name %q must be a plain identifier and not one of user, iter, run, rand, unique, counter", line, v)
		}
		if _, ok := c.params[v]; ok {
			return nil, fmt.Errorf("line %d: variable %q has the name of a parameter", line, v)
		}
	}
	names := make([]string, 0, len(declared))
	for v := range declared {
		names = append(names, v)
	}
	sort.Strings(names)
	for i, v := range names {
		c.slots[v] = i
	}
	sc.Vars = names
	steps, _, err := c.steps(raw.Flow, set{}, false)
	if err != nil {
		return nil, err
	}
	sc.Steps = steps
	sc.pools, sc.draws = c.pools, c.draws
	return sc, nil
}

var reserved = map[string]bool{"user": true, "iter": true, "run": true, "rand": true, "counter": true, "unique": true}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, ch := range s {
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

func tidyYAMLError(err error) error {
	return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "yaml: "))
}

func collectVars(steps []rawStep, out map[string]int) {
	for i := range steps {
		s := &steps[i]
		for _, st := range s.Set {
			if _, ok := out[st.Var]; !ok {
				out[st.Var] = st.line
			}
		}
		if s.Request != nil {
			for _, e := range s.Request.Extract {
				if _, ok := out[e.Var]; !ok {
					out[e.Var] = e.line
				}
				collectVars(e.Else, out)
			}
		}
		collectVars(s.Steps, out)
		for _, b := range s.Choice {
			collectVars(b.Steps, out)
		}
	}
}

// set is the variables certainly assigned at a point of the flow.
type set map[string]bool

func (s set) with(names ...string) set {
	out := make(set, len(s)+len(names))
	for k := range s {
		out[k] = true
	}
	for _, n := range names {
		out[n] = true
	}
	return out
}

type compiler struct {
	params   map[string]string
	order    []string
	slots    map[string]int
	counters map[string]*atomic.Int64
	headers  []kv
	// unique draws: the set being compiled (drawVar "" outside a set), the ranges, the draws
	drawVar      string
	drawLine     int
	drawRepeated bool
	slice        Slice
	pools        []*pool
	draws        []*pool
	data         *Feed
}

func (c *compiler) paramList() string {
	if len(c.order) == 0 {
		return "none"
	}
	return strings.Join(c.order, ", ")
}

// scope resolves template names at one point of the flow.
type scope struct {
	c       *compiler
	defined set
}

func (s scope) param(name string) (string, bool) { v, ok := s.c.params[name]; return v, ok }
func (s scope) variable(name string) (int, error) {
	slot, ok := s.c.slots[name]
	if !ok {
		return 0, fmt.Errorf("unknown variable %q (%s)", name, s.names())
	}
	if !s.defined[name] {
		return 0, fmt.Errorf("variable %q may be used before it is set on this path of the flow", name)
	}
	return slot, nil
}
func (s scope) counter(name string) *atomic.Int64 {
	ctr := s.c.counters[name]
	if ctr == nil {
		ctr = new(atomic.Int64)
		s.c.counters[name] = ctr
	}
	return ctr
}
func (s scope) unique(src string, lo, hi int64) (int, error) { return s.c.uniqueDraw(src, lo, hi) }
func (s scope) feed() *Feed                                  { return s.c.data }
func (s scope) names() string {
	vars := make([]string, 0, len(s.c.slots))
	for v := range s.c.slots {
		vars = append(vars, v)
	}
	sort.Strings(vars)
	return fmt.Sprintf("parameters: %s; variables: %s; built-ins: user, iter, run", s.c.paramList(), orNone(vars))
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

var stepKeys = []string{"request", "transaction", "set", "think", "choice", "repeat", "stop"}

// steps compiles a list of steps; defined is what is set on entry, and the result is what is
// certainly set after them. inTx restricts the steps allowed inside a transaction.
func (c *compiler) steps(raw []rawStep, defined set, inTx bool) ([]*Step, set, error) {
	var out []*Step
	for i := range raw {
		r := &raw[i]
		var kinds []string
		for _, k := range r.keys {
			for _, sk := range stepKeys {
				if k == sk {
					kinds = append(kinds, k)
				}
			}
		}
		if len(kinds) != 1 {
			return nil, nil, fmt.Errorf("line %d: a step is exactly one of %s (got %s)", r.line, strings.Join(stepKeys, ", "), orNone(kinds))
		}
		kind := kinds[0]
		if r.Steps != nil && kind != "transaction" && kind != "repeat" {
			return nil, nil, fmt.Errorf("line %d: steps: belongs to a transaction or repeat step", r.line)
		}
		if inTx && kind != "request" && kind != "set" {
			return nil, nil, fmt.Errorf("line %d: a transaction holds only request and set steps (think between its requests would count in its time)", r.line)
		}
		st := &Step{Line: r.line}
		sc := scope{c, defined}
		switch kind {
		case "request":
			if r.Request == nil { // "request:" with nothing after it
				return nil, nil, fmt.Errorf("line %d: request: is empty: give at least its url", r.line)
			}
			req, after, err := c.request(r.Request, defined, inTx)
			if err != nil {
				return nil, nil, err
			}
			st.Kind, st.Request = StepRequest, req
			defined = after
		case "transaction":
			if r.Transaction == "" {
				return nil, nil, fmt.Errorf("line %d: a transaction needs a name", r.line)
			}
			if len(r.Steps) == 0 {
				return nil, nil, fmt.Errorf("line %d: transaction %q has no steps", r.line, r.Transaction)
			}
			sub, after, err := c.steps(r.Steps, defined, true)
			if err != nil {
				return nil, nil, err
			}
			st.Kind, st.Name, st.Steps = StepTransaction, r.Transaction, sub
			defined = after
		case "set":
			st.Kind = StepSet
			for _, rs := range r.Set {
				ndraws := len(c.draws)
				c.drawVar, c.drawLine, c.drawRepeated = rs.Var, rs.line, rs.Repeat != nil
				v, err := compileTemplate(rs.Value, sc)
				c.drawVar = ""
				if err != nil {
					return nil, nil, fmt.Errorf("line %d: set %s: %w", rs.line, rs.Var, err)
				}
				s := Set{Slot: c.slots[rs.Var], Var: rs.Var, Value: v, Min: 1, Max: 1, Join: rs.Join, Unique: len(c.draws) > ndraws}
				if rs.Repeat != nil {
					if s.Min, s.Max, err = c.count(rs.Repeat); err != nil {
						return nil, nil, err
					}
					s.IsRepeated = true
				}
				st.Sets = append(st.Sets, s)
				defined = defined.with(rs.Var)
				sc = scope{c, defined}
			}
		case "think":
			t, err := ParseThink(r.Think)
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: %w", r.line, err)
			}
			st.Kind, st.Think = StepThink, t
		case "choice":
			if len(r.Choice) == 0 {
				return nil, nil, fmt.Errorf("line %d: choice has no branches", r.line)
			}
			st.Kind = StepChoice
			var after set
			for _, b := range r.Choice {
				if b.Weight <= 0 {
					return nil, nil, fmt.Errorf("line %d: a choice branch needs a positive weight", b.line)
				}
				if len(b.Steps) == 0 {
					return nil, nil, fmt.Errorf("line %d: choice branch %q has no steps", b.line, b.Name)
				}
				sub, out, err := c.steps(b.Steps, defined, false)
				if err != nil {
					return nil, nil, err
				}
				st.Branches = append(st.Branches, Branch{Name: b.Name, Weight: b.Weight, Steps: sub})
				st.TotalWeight += b.Weight
				if endsInStop(sub) {
					continue
				}
				if after == nil {
					after = out
				} else {
					after = intersect(after, out)
				}
			}
			if after != nil {
				defined = after
			}
		case "repeat":
			if r.Repeat == nil {
				return nil, nil, fmt.Errorf("line %d: repeat needs a count: repeat: 5, or repeat: [1, 10]", r.line)
			}
			if len(r.Steps) == 0 {
				return nil, nil, fmt.Errorf("line %d: repeat has no steps", r.line)
			}
			sub, out, err := c.steps(r.Steps, defined, false)
			if err != nil {
				return nil, nil, err
			}
			st.Kind, st.Steps = StepRepeat, sub
			if st.Min, st.Max, err = c.count(r.Repeat); err != nil {
				return nil, nil, err
			}
			if st.Min > 0 {
				defined = out
			}
		case "stop":
			if !r.Stop {
				return nil, nil, fmt.Errorf("line %d: write stop: true to end the iteration here", r.line)
			}
			st.Kind = StepStop
		}
		out = append(out, st)
	}
	return out, defined, nil
}

func (c *compiler) count(r *rawCount) (lo, hi int, err error) {
	sc := scope{c: c}
	a, err := intArg(r.Min, sc)
	if err == nil {
		var b int64
		b, err = intArg(r.Max, sc)
		lo, hi = int(a), int(b)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("line %d: count: %w", r.line, err)
	}
	if lo < 0 || hi < lo || hi > 1_000_000 {
		return 0, 0, fmt.Errorf("line %d: count must be 0 <= min <= max <= 1000000, got [%d, %d]", r.line, lo, hi)
	}
	return lo, hi, nil
}

func endsInStop(s []*Step) bool { return len(s) > 0 && s[len(s)-1].Kind == StepStop }

func intersect(a, b set) set {
	out := set{}
	for k := range a {
		if b[k] {
			out[k] = true
		}
	}
	return out
}

var forbiddenHeaders = map[string]bool{"host": true, "content-length": true, "transfer-encoding": true, "connection": true}

func (c *compiler) request(r *rawRequest, defined set, inTx bool) (*Request, set, error) {
	sc := scope{c, defined}
	at := func(err error) error { return fmt.Errorf("line %d: request: %w", r.line, err) }
	if r.URL == "" {
		return nil, nil, at(fmt.Errorf("url is required"))
	}
	req := &Request{Line: r.line, FollowRedirects: true}
	var err error
	if req.URL, err = compileTemplate(r.URL, sc); err != nil {
		return nil, nil, at(fmt.Errorf("url: %w", err))
	}
	if u, ok := req.URL.Const(); ok && !strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return nil, nil, at(fmt.Errorf("url %q must be a path starting with / (relative to the target) or an http(s):// URL", u))
	}
	if r.Body != "" && len(r.Form) > 0 {
		return nil, nil, at(fmt.Errorf("give form or body, not both"))
	}
	req.Method = strings.ToUpper(r.Method)
	if req.Method == "" {
		req.Method = "GET"
		if len(r.Form) > 0 || r.Body != "" {
			req.Method = "POST"
		}
	}
	if !isToken(req.Method) {
		return nil, nil, at(fmt.Errorf("method %q is not an HTTP method", r.Method))
	}
	req.Name = r.Name
	if req.Name == "" {
		req.Name = req.Method + " " + r.URL
	}
	fields := func(what string, m orderedMap) ([]Field, error) {
		var out []Field
		for _, f := range m {
			t, err := compileTemplate(f.Val, sc)
			if err != nil {
				return nil, fmt.Errorf("line %d: %s %s: %w", f.Line, what, f.Key, err)
			}
			out = append(out, Field{Key: f.Key, Val: t})
		}
		return out, nil
	}
	if req.Query, err = fields("query", r.Query); err != nil {
		return nil, nil, err
	}
	if req.Form, err = fields("form", r.Form); err != nil {
		return nil, nil, err
	}
	// scenario-wide headers first, then the request's own (which replace same-named ones)
	var hs orderedMap
	for _, h := range c.headers {
		replaced := false
		for _, o := range r.Headers {
			if strings.EqualFold(o.Key, h.Key) {
				replaced = true
			}
		}
		if !replaced {
			hs = append(hs, h)
		}
	}
	hs = append(hs, r.Headers...)
	hasCT := false
	for _, h := range hs {
		if !isToken(h.Key) {
			return nil, nil, fmt.Errorf("line %d: header name %q is not valid", h.Line, h.Key)
		}
		if forbiddenHeaders[strings.ToLower(h.Key)] {
			return nil, nil, fmt.Errorf("line %d: header %s is set by the driver itself", h.Line, h.Key)
		}
		if strings.ContainsAny(h.Val, "\r\n") {
			return nil, nil, fmt.Errorf("line %d: header %s: value has a line break", h.Line, h.Key)
		}
		hasCT = hasCT || strings.EqualFold(h.Key, "Content-Type")
	}
	if req.Header, err = fields("header", hs); err != nil {
		return nil, nil, err
	}
	if len(r.Form) > 0 && !hasCT {
		req.Header = append(req.Header, Field{Key: "Content-Type", Val: &Template{konst: true, segs: []seg{{kind: segLit, lit: "application/x-www-form-urlencoded"}}}})
	}
	if r.Body != "" {
		if req.Body, err = compileTemplate(r.Body, sc); err != nil {
			return nil, nil, at(fmt.Errorf("body: %w", err))
		}
	}
	if r.Think != nil {
		t, err := ParseThink(*r.Think)
		if err != nil {
			return nil, nil, at(err)
		}
		req.Think = &t
	}
	if inTx && r.Think != nil {
		return nil, nil, at(fmt.Errorf("think inside a transaction would count in its time; put it after the transaction"))
	}
	if r.FollowRedirects != nil {
		req.FollowRedirects = *r.FollowRedirects
	}
	if ck := r.Check; ck != nil {
		for _, s := range ck.Status {
			if s < 100 || s > 599 {
				return nil, nil, fmt.Errorf("line %d: check status %d is not an HTTP status", ck.line, s)
			}
		}
		req.Check.Status = ck.Status
		for _, s := range ck.Contains {
			t, err := compileTemplate(s, sc)
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: check contains: %w", ck.line, err)
			}
			req.Check.Contains = append(req.Check.Contains, t)
		}
		for _, s := range ck.NotContains {
			t, err := compileTemplate(s, sc)
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: check not_contains: %w", ck.line, err)
			}
			req.Check.NotContains = append(req.Check.NotContains, t)
		}
		for _, s := range ck.Regex {
			p, err := compilePattern(s, sc)
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: check regex: %w", ck.line, err)
			}
			req.Check.Regex = append(req.Check.Regex, p)
		}
		if ck.MinBytes < 0 {
			return nil, nil, fmt.Errorf("line %d: min_bytes must not be negative", ck.line)
		}
		req.Check.MinBytes = int64(ck.MinBytes)
	}
	after := defined
	for _, e := range r.Extract {
		if e.Regex == "" {
			return nil, nil, fmt.Errorf("line %d: extract %s: regex is required", e.line, e.Var)
		}
		re, err := regexp.Compile(e.Regex)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: extract %s: %w", e.line, e.Var, err)
		}
		x := Extract{Slot: c.slots[e.Var], Var: e.Var, Re: re}
		switch {
		case e.Group != nil:
			if *e.Group < 0 || *e.Group > re.NumSubexp() {
				return nil, nil, fmt.Errorf("line %d: extract %s: group %d, but the regex has %d groups", e.line, e.Var, *e.Group, re.NumSubexp())
			}
			x.Group = *e.Group
		case re.NumSubexp() > 0:
			x.Group = 1
		}
		switch e.Pick {
		case "", "first":
		case "last":
			x.Pick = PickLast
		case "random":
			x.Pick = PickRandom
		case "max":
			x.Pick = PickMax
		case "min":
			x.Pick = PickMin
		default:
			return nil, nil, fmt.Errorf("line %d: extract %s: pick %q (use first, last, random, max or min)", e.line, e.Var, e.Pick)
		}
		if len(e.Else) > 0 {
			if inTx {
				return nil, nil, fmt.Errorf("line %d: extract %s: else is not allowed inside a transaction", e.line, e.Var)
			}
			// the else branch runs instead of what follows, so it sees only what was set before
			if x.Else, _, err = c.steps(e.Else, after, false); err != nil {
				return nil, nil, err
			}
		}
		req.Extract = append(req.Extract, x)
		after = after.with(e.Var)
	}
	req.NeedBody = len(req.Check.Contains)+len(req.Check.NotContains)+len(req.Check.Regex)+len(req.Extract) > 0
	return req, after, nil
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`()<>@,;:\"/[]?={}`), c) >= 0 {
			return false
		}
	}
	return true
}
