package scenario

import (
	"fmt"
	"slices"
	"strings"
)

// Steps and their control flow. Each compiling function takes the variables certainly set on
// entry and returns those certainly set after the step, which is how a use before assignment is
// caught on every path: a transaction's or a repeat's steps run in line (a repeat's only when it
// runs at least once), a choice's branches join with what all of them set (a branch ending in
// stop never joins), and an extraction's else branch replaces what follows it.

// stepKeys are the keys that say what a step is; a step has exactly one of them.
var stepKeys = []string{"request", "transaction", "set", "think", "choice", "repeat", "stop"}

// steps compiles a list of steps; defined is what is set on entry, and the result is what is
// certainly set after them. inTx restricts the steps allowed inside a transaction.
func (c *compiler) steps(raw []rawStep, defined set, inTx bool) ([]*Step, set, error) {
	var out []*Step
	for i := range raw {
		st, after, err := c.step(&raw[i], defined, inTx)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, st)
		defined = after
	}
	return out, defined, nil
}

// step compiles one step of the kind its key names.
func (c *compiler) step(r *rawStep, defined set, inTx bool) (*Step, set, error) {
	kind, err := stepKind(r, inTx)
	if err != nil {
		return nil, nil, err
	}
	st := &Step{Line: r.line}
	switch kind {
	case "request":
		defined, err = c.requestStep(st, r, defined, inTx)
	case "transaction":
		defined, err = c.transactionStep(st, r, defined)
	case "set":
		defined, err = c.setStep(st, r.Set, defined)
	case "think":
		err = thinkStep(st, r)
	case "choice":
		defined, err = c.choiceStep(st, r, defined)
	case "repeat":
		defined, err = c.repeatStep(st, r, defined)
	case "stop":
		err = stopStep(st, r)
	}
	if err != nil {
		return nil, nil, err
	}
	return st, defined, nil
}

// stepKind returns which of stepKeys r is. Only a transaction or a repeat holds steps:, and a
// transaction holds only requests and sets, since a think or a nested flow inside it would count
// in its time.
func stepKind(r *rawStep, inTx bool) (string, error) {
	var kinds []string
	for _, k := range r.keys {
		if slices.Contains(stepKeys, k) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		return "", fmt.Errorf("line %d: a step is exactly one of %s (got %s)", r.line, strings.Join(stepKeys, ", "), orNone(kinds))
	}
	kind := kinds[0]
	if r.Steps != nil && kind != "transaction" && kind != "repeat" {
		return "", fmt.Errorf("line %d: steps: belongs to a transaction or repeat step", r.line)
	}
	if inTx && kind != "request" && kind != "set" {
		return "", fmt.Errorf("line %d: a transaction holds only request and set steps (think between its requests would count in its time)", r.line)
	}
	return kind, nil
}

// requestStep compiles a request timed as its own transaction.
func (c *compiler) requestStep(st *Step, r *rawStep, defined set, inTx bool) (set, error) {
	if r.Request == nil { // "request:" with nothing after it
		return nil, fmt.Errorf("line %d: request: is empty: give at least its url", r.line)
	}
	req, after, err := c.request(r.Request, defined, inTx)
	if err != nil {
		return nil, err
	}
	st.Kind, st.Request = StepRequest, req
	return after, nil
}

// transactionStep compiles several requests (and sets) timed as one named transaction.
func (c *compiler) transactionStep(st *Step, r *rawStep, defined set) (set, error) {
	if r.Transaction == "" {
		return nil, fmt.Errorf("line %d: a transaction needs a name", r.line)
	}
	if len(r.Steps) == 0 {
		return nil, fmt.Errorf("line %d: transaction %q has no steps", r.line, r.Transaction)
	}
	sub, after, err := c.steps(r.Steps, defined, true)
	if err != nil {
		return nil, err
	}
	st.Kind, st.Name, st.Steps = StepTransaction, r.Transaction, sub
	return after, nil
}

// setStep compiles assignments in order: each value may read the variables the step set before
// it.
func (c *compiler) setStep(st *Step, raw []rawSet, defined set) (set, error) {
	st.Kind = StepSet
	for _, rs := range raw {
		s, err := c.assignment(rs, defined)
		if err != nil {
			return nil, err
		}
		st.Sets = append(st.Sets, s)
		defined = defined.with(rs.Var)
	}
	return defined, nil
}

// assignment compiles one variable's value. A unique draw in it is registered under the
// variable (unique.go: the draw is held until the iteration ends, and a repeated value would
// hold several), which is why the compiler is told which set it is compiling.
func (c *compiler) assignment(rs rawSet, defined set) (Set, error) {
	ndraws := len(c.draws)
	c.drawVar, c.drawLine, c.drawRepeated = rs.Var, rs.line, rs.Repeat != nil
	v, err := compileTemplate(rs.Value, scope{c, defined})
	c.drawVar = ""
	if err != nil {
		return Set{}, fmt.Errorf("line %d: set %s: %w", rs.line, rs.Var, err)
	}
	s := Set{Slot: c.slots[rs.Var], Var: rs.Var, Value: v, Min: 1, Max: 1, Join: rs.Join, Unique: len(c.draws) > ndraws}
	if rs.Repeat != nil {
		if s.Min, s.Max, err = c.count(rs.Repeat); err != nil {
			return Set{}, err
		}
		s.IsRepeated = true
	}
	return s, nil
}

// thinkStep compiles a pause in the flow.
func thinkStep(st *Step, r *rawStep) error {
	t, err := ParseThink(r.Think)
	if err != nil {
		return fmt.Errorf("line %d: %w", r.line, err)
	}
	st.Kind, st.Think = StepThink, t
	return nil
}

// choiceStep compiles weighted branches. After the choice a variable is certain only if every
// branch that goes on sets it; a branch ending in stop ends the iteration, so it does not count.
func (c *compiler) choiceStep(st *Step, r *rawStep, defined set) (set, error) {
	if len(r.Choice) == 0 {
		return nil, fmt.Errorf("line %d: choice has no branches", r.line)
	}
	st.Kind = StepChoice
	var after set
	for _, b := range r.Choice {
		if b.Weight <= 0 {
			return nil, fmt.Errorf("line %d: a choice branch needs a positive weight", b.line)
		}
		if len(b.Steps) == 0 {
			return nil, fmt.Errorf("line %d: choice branch %q has no steps", b.line, b.Name)
		}
		sub, out, err := c.steps(b.Steps, defined, false)
		if err != nil {
			return nil, err
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
	if after == nil {
		return defined, nil
	}
	return after, nil
}

func endsInStop(s []*Step) bool { return len(s) > 0 && s[len(s)-1].Kind == StepStop }

// repeatStep compiles steps run a (random) number of times. What they set is certain after them
// only if they run at least once.
func (c *compiler) repeatStep(st *Step, r *rawStep, defined set) (set, error) {
	if r.Repeat == nil {
		return nil, fmt.Errorf("line %d: repeat needs a count: repeat: 5, or repeat: [1, 10]", r.line)
	}
	if len(r.Steps) == 0 {
		return nil, fmt.Errorf("line %d: repeat has no steps", r.line)
	}
	sub, out, err := c.steps(r.Steps, defined, false)
	if err != nil {
		return nil, err
	}
	st.Kind, st.Steps = StepRepeat, sub
	if st.Min, st.Max, err = c.count(r.Repeat); err != nil {
		return nil, err
	}
	if st.Min > 0 {
		return out, nil
	}
	return defined, nil
}

// stopStep compiles the end of the iteration; stop: false is refused rather than ignored.
func stopStep(st *Step, r *rawStep) error {
	if !r.Stop {
		return fmt.Errorf("line %d: write stop: true to end the iteration here", r.line)
	}
	st.Kind = StepStop
	return nil
}

// count compiles a repeat count, N or [min, max], each a number or a parameter's name (a
// variable's value is not known until run time, so it cannot bound a count).
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
