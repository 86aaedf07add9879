package cliflag

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"net"
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

// hostPortValue is a listen address bound to a string (see HostPortVar).
type hostPortValue struct{ p *string }

func (v hostPortValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v hostPortValue) Set(s string) error {
	if s != "" {
		_, port, err := net.SplitHostPort(s)
		if err == nil {
			_, err = strconv.ParseUint(port, 10, 16)
		}
		if err != nil {
			return fmt.Errorf("want host:port (e.g. 127.0.0.1:9464, :9464)")
		}
	}
	*v.p = s
	return nil
}

// HostPortVar defines a flag that sets *p to a listen address, host:port with a numeric port
// (":9464", "127.0.0.1:0"), or "" for none: a mistake is refused as it is given, before
// anything starts.
func HostPortVar(fs *flag.FlagSet, p *string, name, usage string) {
	fs.Var(hostPortValue{p}, name, usage)
}
