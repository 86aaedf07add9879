package layering

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/tradebench/tradebench"

// rule: no package matched by the patterns may depend, directly or not, on a package under
// any of the forbidden trees.
type rule struct {
	patterns  []string
	forbidden []string
}

var rules = []rule{
	{patterns: []string{"./driver/...", "./report/..."}, forbidden: []string{"trade", "wstest", "cacheperf", "xmlmark", "bench"}},
	{patterns: []string{"./wstest/..."}, forbidden: []string{"trade", "bench"}},
	{patterns: []string{"./trade/...", "./cacheperf/...", "./xmlmark/..."}, forbidden: []string{"bench"}},
}

func TestLayering(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the layering check needs the go command: %v", err)
	}
	for _, r := range rules {
		t.Run(strings.Join(r.patterns, ","), func(t *testing.T) {
			for _, v := range violations(t, r) {
				t.Error(v)
			}
		})
	}
}

// violations lists, for each forbidden package in the rule's dependency closure, which
// package of the closure imports it, so the message points at the import to remove.
func violations(t *testing.T, r rule) []string {
	t.Helper()
	args := append([]string{"list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`}, r.patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	importers := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		for _, imp := range f[1:] {
			importers[imp] = append(importers[imp], f[0])
		}
		importers[f[0]] = append(importers[f[0]], "")
	}
	var bad []string
	for pkg, by := range importers {
		if !under(pkg, r.forbidden) {
			continue
		}
		var direct []string
		for _, b := range by {
			if b != "" && !under(b, r.forbidden) {
				direct = append(direct, b)
			}
		}
		if len(direct) > 0 {
			sort.Strings(direct)
			bad = append(bad, pkg+" is imported by "+strings.Join(direct, ", "))
		}
	}
	sort.Strings(bad)
	return bad
}

// under reports whether pkg is one of the module's trees (the tree's root or below it).
func under(pkg string, trees []string) bool {
	for _, tr := range trees {
		root := module + "/" + tr
		if pkg == root || strings.HasPrefix(pkg, root+"/") {
			return true
		}
	}
	return false
}
