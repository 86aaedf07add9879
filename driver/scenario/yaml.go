package scenario

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The file format as written, decoded strictly: every mapping's keys are checked against its
// type's fields so a misspelt key is an error with its line, not a silently ignored setting.

type rawScenario struct {
	Name        string     `yaml:"name"`
	Description string     `yaml:"description"`
	Params      orderedMap `yaml:"params"`
	Think       string     `yaml:"think"`
	Headers     orderedMap `yaml:"headers"`
	Flow        []rawStep  `yaml:"flow"`
}

type rawStep struct {
	line        int
	keys        []string
	Request     *rawRequest `yaml:"request"`
	Transaction string      `yaml:"transaction"`
	Steps       []rawStep   `yaml:"steps"`
	Set         []rawSet    `yaml:"-"`
	Think       string      `yaml:"think"`
	Choice      []rawBranch `yaml:"choice"`
	Repeat      *rawCount   `yaml:"repeat"`
	Stop        bool        `yaml:"stop"`
}

type rawRequest struct {
	line            int
	Name            string       `yaml:"name"`
	Method          string       `yaml:"method"`
	URL             string       `yaml:"url"`
	Query           orderedMap   `yaml:"query"`
	Form            orderedMap   `yaml:"form"`
	Headers         orderedMap   `yaml:"headers"`
	Body            string       `yaml:"body"`
	Check           *rawCheck    `yaml:"check"`
	Extract         []rawExtract `yaml:"-"`
	Think           *string      `yaml:"think"`
	FollowRedirects *bool        `yaml:"follow_redirects"`
}

type rawCheck struct {
	line        int
	Status      intList `yaml:"status"`
	Contains    strList `yaml:"contains"`
	NotContains strList `yaml:"not_contains"`
	Regex       strList `yaml:"regex"`
	MinBytes    int     `yaml:"min_bytes"`
}

type rawExtract struct {
	line  int
	Var   string    `yaml:"-"`
	Regex string    `yaml:"regex"`
	Group *int      `yaml:"group"`
	Pick  string    `yaml:"pick"`
	Else  []rawStep `yaml:"else"`
}

type rawBranch struct {
	line   int
	Name   string    `yaml:"name"`
	Weight int       `yaml:"weight"`
	Steps  []rawStep `yaml:"steps"`
}

type rawSet struct {
	line   int
	Var    string
	Value  string    `yaml:"value"`
	Repeat *rawCount `yaml:"repeat"`
	Join   string    `yaml:"join"`
}

// rawCount is N or [min, max]; each a number or a parameter's name.
type rawCount struct {
	line     int
	Min, Max string
}

type kv struct {
	Key, Val string
	Line     int
}

// orderedMap keeps a mapping's order (query parameters and form fields are sent as written).
type orderedMap []kv

type intList []int
type strList []string

func (m *orderedMap) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: expected a mapping of names to values", n.Line)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: the value of %q must be a single value (text or number)", v.Line, k.Value)
		}
		if seen[k.Value] {
			return fmt.Errorf("line %d: %q appears twice", k.Line, k.Value)
		}
		seen[k.Value] = true
		*m = append(*m, kv{Key: k.Value, Val: v.Value, Line: k.Line})
	}
	return nil
}

func (l *intList) UnmarshalYAML(n *yaml.Node) error {
	var one int
	if n.Kind == yaml.ScalarNode {
		if err := n.Decode(&one); err != nil {
			return fmt.Errorf("line %d: expected a status code or a list of them", n.Line)
		}
		*l = intList{one}
		return nil
	}
	var many []int
	if err := n.Decode(&many); err != nil {
		return fmt.Errorf("line %d: expected a status code or a list of them", n.Line)
	}
	*l = many
	return nil
}

func (l *strList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = strList{n.Value}
		return nil
	}
	var many []string
	if err := n.Decode(&many); err != nil {
		return fmt.Errorf("line %d: expected text or a list of texts", n.Line)
	}
	*l = many
	return nil
}

func (c *rawCount) UnmarshalYAML(n *yaml.Node) error {
	c.line = n.Line
	if n.Kind == yaml.ScalarNode {
		c.Min, c.Max = n.Value, n.Value
		return nil
	}
	var mm []string
	if err := n.Decode(&mm); err != nil || len(mm) != 2 {
		return fmt.Errorf("line %d: expected a count or [min, max]", n.Line)
	}
	c.Min, c.Max = mm[0], mm[1]
	return nil
}

func (s *rawScenario) UnmarshalYAML(n *yaml.Node) error {
	type plain rawScenario
	return strict(n, "scenario", (*plain)(s))
}

func (s *rawStep) UnmarshalYAML(n *yaml.Node) error {
	type plain rawStep
	if err := strict(n, "step", (*plain)(s), "set"); err != nil {
		return err
	}
	s.line = n.Line
	for i := 0; i+1 < len(n.Content); i += 2 {
		s.keys = append(s.keys, n.Content[i].Value)
		if n.Content[i].Value == "set" {
			v := n.Content[i+1]
			if v.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: set takes a mapping of variable names to values", v.Line)
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				var rs rawSet
				if err := rs.decode(v.Content[j], v.Content[j+1]); err != nil {
					return err
				}
				s.Set = append(s.Set, rs)
			}
		}
	}
	return nil
}

func (s *rawSet) decode(k, v *yaml.Node) error {
	s.line, s.Var = k.Line, k.Value
	switch v.Kind {
	case yaml.ScalarNode:
		s.Value = v.Value
		return nil
	case yaml.MappingNode:
		type plain struct {
			Value  string    `yaml:"value"`
			Repeat *rawCount `yaml:"repeat"`
			Join   string    `yaml:"join"`
		}
		var p plain
		if err := strict(v, "set "+k.Value, &p); err != nil {
			return err
		}
		s.Value, s.Repeat, s.Join = p.Value, p.Repeat, p.Join
		return nil
	}
	return fmt.Errorf("line %d: set %s: expected a template or {value, repeat, join}", v.Line, k.Value)
}

func (r *rawRequest) UnmarshalYAML(n *yaml.Node) error {
	type plain rawRequest
	if err := strict(n, "request", (*plain)(r), "extract"); err != nil {
		return err
	}
	r.line = n.Line
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "extract" {
			continue
		}
		v := n.Content[i+1]
		if v.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: extract takes a mapping of variable names to {regex, group, pick, else}", v.Line)
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			var e rawExtract
			if err := v.Content[j+1].Decode(&e); err != nil {
				return err
			}
			e.Var, e.line = v.Content[j].Value, v.Content[j].Line
			r.Extract = append(r.Extract, e)
		}
	}
	return nil
}

func (c *rawCheck) UnmarshalYAML(n *yaml.Node) error {
	type plain rawCheck
	c.line = n.Line
	return strict(n, "check", (*plain)(c))
}

func (e *rawExtract) UnmarshalYAML(n *yaml.Node) error {
	type plain rawExtract
	if n.Kind == yaml.ScalarNode { // shorthand: the regex alone
		e.Regex, e.line = n.Value, n.Line
		return nil
	}
	return strict(n, "extract", (*plain)(e))
}

func (b *rawBranch) UnmarshalYAML(n *yaml.Node) error {
	type plain rawBranch
	if err := strict(n, "choice branch", (*plain)(b)); err != nil {
		return err
	}
	b.line = n.Line
	return nil
}

// strict checks that n is a mapping whose keys are all fields of v (a pointer to a struct with
// yaml tags) or extra, then decodes it.
func strict(n *yaml.Node, what string, v any, extra ...string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s: expected a mapping (key: value lines)", n.Line, what)
	}
	known := map[string]bool{}
	for _, e := range extra {
		known[e] = true
	}
	t := reflect.TypeOf(v).Elem()
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if tag != "" && tag != "-" {
			known[tag] = true
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !known[k.Value] {
			names := make([]string, 0, len(known))
			for name := range known {
				names = append(names, name)
			}
			sort.Strings(names)
			return fmt.Errorf("line %d: unknown field %q in %s (known: %s)", k.Line, k.Value, what, strings.Join(names, ", "))
		}
		if seen[k.Value] {
			return fmt.Errorf("line %d: %q appears twice in %s", k.Line, k.Value, what)
		}
		seen[k.Value] = true
	}
	if len(extra) > 0 { // decode without the extra keys, which the caller handles itself
		cp := *n
		cp.Content = nil
		skip := map[string]bool{}
		for _, e := range extra {
			skip[e] = true
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !skip[n.Content[i].Value] {
				cp.Content = append(cp.Content, n.Content[i], n.Content[i+1])
			}
		}
		n = &cp
	}
	return n.Decode(v)
}
