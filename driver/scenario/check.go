package scenario

import (
	"fmt"
	"regexp"
)

// What a response must satisfy (Check) and what is taken from it into variables (Extract).
// Contains, not_contains and regex are templates, so a check can look for a value the flow
// extracted before; an extraction's regex is fixed, compiled once here.

// compileCheck compiles a request's check: status codes that are HTTP statuses, texts the body
// must or must not contain, regexes it must match, a least size.
func compileCheck(ck *rawCheck, sc scope) (Check, error) {
	var out Check
	for _, s := range ck.Status {
		if s < 100 || s > 599 {
			return Check{}, fmt.Errorf("line %d: check status %d is not an HTTP status", ck.line, s)
		}
	}
	out.Status = ck.Status
	var err error
	if out.Contains, err = compileTemplates("contains", ck.line, ck.Contains, sc); err != nil {
		return Check{}, err
	}
	if out.NotContains, err = compileTemplates("not_contains", ck.line, ck.NotContains, sc); err != nil {
		return Check{}, err
	}
	for _, s := range ck.Regex {
		p, err := compilePattern(s, sc)
		if err != nil {
			return Check{}, fmt.Errorf("line %d: check regex: %w", ck.line, err)
		}
		out.Regex = append(out.Regex, p)
	}
	if ck.MinBytes < 0 {
		return Check{}, fmt.Errorf("line %d: min_bytes must not be negative", ck.line)
	}
	out.MinBytes = int64(ck.MinBytes)
	return out, nil
}

// compileTemplates compiles the texts of one kind of check (what).
func compileTemplates(what string, line int, srcs []string, sc scope) ([]*Template, error) {
	var out []*Template
	for _, s := range srcs {
		t, err := compileTemplate(s, sc)
		if err != nil {
			return nil, fmt.Errorf("line %d: check %s: %w", line, what, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// extracts compiles a request's extractions in order; each one's variable is set for the
// extractions after it and for the steps after the request.
func (c *compiler) extracts(raw []rawExtract, defined set, inTx bool) ([]Extract, set, error) {
	var out []Extract
	for i := range raw {
		e := &raw[i]
		x, err := c.extract(e, defined, inTx)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, x)
		defined = defined.with(e.Var)
	}
	return out, defined, nil
}

// picks are the words of pick:, "" the default.
var picks = map[string]Pick{"": PickFirst, "first": PickFirst, "last": PickLast, "random": PickRandom, "max": PickMax, "min": PickMin}

// extract compiles one extraction. Without a group the regex's first group is taken if it has
// one, else the whole match. Its else branch runs instead of the steps that follow, so it sees
// only what was set before the extraction; not inside a transaction, whose requests are timed
// as one and cannot be left halfway.
func (c *compiler) extract(e *rawExtract, defined set, inTx bool) (Extract, error) {
	if e.Regex == "" {
		return Extract{}, fmt.Errorf("line %d: extract %s: regex is required", e.line, e.Var)
	}
	re, err := regexp.Compile(e.Regex)
	if err != nil {
		return Extract{}, fmt.Errorf("line %d: extract %s: %w", e.line, e.Var, err)
	}
	x := Extract{Slot: c.slots[e.Var], Var: e.Var, Re: re}
	switch {
	case e.Group != nil:
		if *e.Group < 0 || *e.Group > re.NumSubexp() {
			return Extract{}, fmt.Errorf("line %d: extract %s: group %d, but the regex has %d groups", e.line, e.Var, *e.Group, re.NumSubexp())
		}
		x.Group = *e.Group
	case re.NumSubexp() > 0:
		x.Group = 1
	}
	pick, ok := picks[e.Pick]
	if !ok {
		return Extract{}, fmt.Errorf("line %d: extract %s: pick %q (use first, last, random, max or min)", e.line, e.Var, e.Pick)
	}
	x.Pick = pick
	if len(e.Else) > 0 {
		if inTx {
			return Extract{}, fmt.Errorf("line %d: extract %s: else is not allowed inside a transaction", e.line, e.Var)
		}
		if x.Else, _, err = c.steps(e.Else, defined, false); err != nil {
			return Extract{}, err
		}
	}
	return x, nil
}
