package cliflag

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// List collects a repeatable flag's values in order (-H 'Accept: x' -H 'X-Y: z').
type List []string

func (l *List) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, "; ")
}

func (l *List) Set(s string) error { *l = append(*l, s); return nil }

// SplitList splits a comma-separated flag value (--symbols s:1,s:2), trimming each item and
// dropping blanks: "" and " , " are no items.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// intsValue is a comma-separated list of counts bound to a []int (see IntsVar).
type intsValue struct{ p *[]int }

func (v intsValue) String() string {
	if v.p == nil {
		return ""
	}
	s := make([]string, len(*v.p))
	for i, n := range *v.p {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (v intsValue) Set(s string) error {
	var out []int
	for _, f := range SplitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a whole number of at least 1 (want e.g. 500,1000,2000)", f)
		}
		out = append(out, n)
	}
	*v.p = out
	return nil
}

// IntsVar defines a flag that sets *p to a comma-separated list of counts, each at least 1
// (--keys 500,1000,2000; empty: none); *p's value is the default.
func IntsVar(fs *flag.FlagSet, p *[]int, name, usage string) {
	fs.Var(intsValue{p}, name, usage)
}
