// Package scenario loads load-test scenarios: YAML files (the built-ins are the same format,
// embedded) describing named transactions of templated HTTP requests, think times, checks,
// extraction into variables, random values (unique among the users, if asked: unique.go),
// counters, weighted choices and repeats. Loading compiles everything once — templates into
// segments, regexes, variable slots — and rejects a bad file with its line number: unknown
// fields, unknown variables, variables used before they can have been set, bad regexes, bad
// think times. Executing a scenario is driver/vuser's job.
package scenario

import (
	"fmt"
	"regexp"
	"sync/atomic"
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
