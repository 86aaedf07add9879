package scenario

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/tradebench/tradebench/internal/suggest"
	"github.com/tradebench/tradebench/internal/untrusted"
)

// The compiler turns the file as written (yaml.go's raw types) into a Scenario in one pass over
// the flow, carrying the set of variables certainly assigned at each point: a template reading
// a variable that some path leaves unset is refused at load time, with its line, instead of
// rendering an empty string under load. It is split by what it compiles:
//
//   - compile.go: the scenario's parameters and variables, and the names a template may use;
//   - steps.go: the steps and their control flow (transactions, choices, repeats, stops);
//   - request.go: a request's URL, method, query, form, headers and body;
//   - check.go: what its response must satisfy, and the extractions into variables.
//
// Templates are template.go's, data feeders ({{row.COLUMN}}) feed.go's, unique draws unique.go's.

// compiler holds what the whole scenario declares while its flow is compiled.
type compiler struct {
	params   map[string]string
	order    []string // the parameters in declaration order
	slots    map[string]int
	counters map[string]*atomic.Int64
	headers  []kv // the scenario-wide headers, sent with every request
	// unique draws: the set being compiled (drawVar "" outside a set), the ranges, the draws
	drawVar      string
	drawLine     int
	drawRepeated bool
	slice        Slice
	pools        []*pool
	draws        []*pool
	data         *Feed
}

func parse(data []byte, opt Options) (*Scenario, error) {
	raw, err := decode(data)
	if err != nil {
		return nil, err
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
	if sc.Params, err = c.declareParams(raw.Params, opt); err != nil {
		return nil, err
	}
	if raw.Think != "" {
		if sc.Think, err = ParseThink(raw.Think); err != nil {
			return nil, err
		}
	}
	if opt.Think != nil {
		sc.Think = *opt.Think
	}
	c.headers = append(c.headers, raw.Headers...)
	if len(raw.Flow) == 0 {
		return nil, fmt.Errorf("the scenario has no flow (a list of steps)")
	}
	if sc.Vars, err = c.declareVars(raw.Flow); err != nil {
		return nil, err
	}
	if sc.Steps, _, err = c.steps(raw.Flow, set{}, false); err != nil {
		return nil, err
	}
	sc.pools, sc.draws = c.pools, c.draws
	return sc, nil
}

// decode reads the file as written. Its YAML is bounded before decoding: an alias bomb is
// refused here, not expanded by Decode.
func decode(data []byte) (*rawScenario, error) {
	var doc yaml.Node
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
	return &raw, nil
}

func tidyYAMLError(err error) error {
	return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "yaml: "))
}

// declareParams takes the scenario's parameters with the options' overrides (an override of a
// parameter the scenario does not declare is a mistake worth stopping for: a misspelt --set
// would otherwise run the default unnoticed) and returns their effective values. The built-in
// run is added after, as it is not the scenario's to declare.
func (c *compiler) declareParams(declared orderedMap, opt Options) ([]Param, error) {
	for _, p := range declared {
		if err := checkName("parameter", p.Key, p.Line); err != nil {
			return nil, err
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
	var out []Param
	for _, k := range c.order {
		out = append(out, Param{k, c.params[k]})
	}
	c.params["run"] = opt.RunID
	return out, nil
}

// declareVars gives each variable the flow assigns (by set or extract, anywhere) a slot, in
// name order, and returns the names. A variable is declared by being assigned; whether it is
// assigned before a use is the steps' check, path by path.
func (c *compiler) declareVars(flow []rawStep) ([]string, error) {
	declared := map[string]int{}
	collectVars(flow, declared)
	names := make([]string, 0, len(declared))
	for v := range declared {
		names = append(names, v)
	}
	sort.Strings(names)
	for i, v := range names {
		line := declared[v]
		if err := checkName("variable", v, line); err != nil {
			return nil, err
		}
		if _, ok := c.params[v]; ok {
			return nil, fmt.Errorf("line %d: variable %q has the name of a parameter", line, v)
		}
		c.slots[v] = i
	}
	return names, nil
}

// collectVars records each variable the steps assign, with the line of its first assignment.
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

// reserved are the built-in names of templates; a parameter or variable of the same name could
// not be told from them.
var reserved = map[string]bool{"user": true, "iter": true, "run": true, "rand": true, "counter": true, "unique": true}

// checkName refuses a parameter's or variable's name (what) that a template could not read as
// one: not a plain identifier, or a built-in's.
func checkName(what, name string, line int) error {
	if !isIdent(name) || reserved[name] {
		return fmt.Errorf("line %d: %s name %q must be a plain identifier and not one of user, iter, run, rand, unique, counter",
			line, what, name)
	}
	return nil
}

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

func (c *compiler) paramList() string {
	if len(c.order) == 0 {
		return "none"
	}
	return strings.Join(c.order, ", ")
}

// set is the variables certainly assigned at a point of the flow.
type set map[string]bool

// with returns a copy of s with names added: s itself is what another path of the flow sees.
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

// intersect is what both of two paths certainly assign: what is certain after they join.
func intersect(a, b set) set {
	out := set{}
	for k := range a {
		if b[k] {
			out[k] = true
		}
	}
	return out
}

// scope resolves template names at one point of the flow: a variable is usable only where the
// flow has certainly set it.
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
