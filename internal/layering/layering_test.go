package layering

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/tradebench/tradebench"

// root is the module's directory, seen from this package's.
const root = "../.."

// rule: no package under the trees may depend, directly or not, on a package under any of the
// forbidden trees (what `go list -deps` of the trees would list).
type rule struct {
	trees     []string
	forbidden []string
}

// The four groups of the tree, one rule each, and shared infrastructure below them all.
var (
	instrument = []string{"driver", "report"}
	systems    = []string{"trade", "wstest", "cacheperf", "xmlmark"}
	jobs       = []string{"bench"}
	command    = []string{"cmd"}
)

// servicesServer is everything of the trade application but its contract (package trade) and
// the remote clients: what bench/verifyservices must not see.
var servicesServer = []string{"trade/access", "trade/audit", "trade/business", "trade/dataset", "trade/internal",
	"trade/orders", "trade/server", "trade/store", "trade/stream", "trade/tui", "trade/web",
	"trade/remote/host", "trade/remote/contracttest", "trade/remote/internal"}

var rules = []rule{
	// the instrument: measures any system, so it knows none of them, nor the jobs that combine both
	{trees: instrument, forbidden: concat(systems, jobs, command)},
	// the systems under test: each stands alone, knows nothing of the instrument that measures it
	{trees: []string{"trade"}, forbidden: concat([]string{"wstest", "cacheperf", "xmlmark"}, instrument, jobs, command)},
	{trees: []string{"wstest"}, forbidden: concat([]string{"trade", "cacheperf", "xmlmark"}, instrument, jobs, command)},
	{trees: []string{"cacheperf"}, forbidden: concat([]string{"trade", "wstest", "xmlmark"}, instrument, jobs, command)},
	{trees: []string{"xmlmark"}, forbidden: concat([]string{"trade", "wstest", "cacheperf"}, instrument, jobs, command)},
	// the jobs: combine a system with the instrument, and are used only by the command
	{trees: jobs, forbidden: command},
	// the conformance suite (tradebench verify) knows the application's contract but sees a
	// target only over the wire, tradebench as any other implementation: it imports no system,
	// so it cannot pass tradebench by reading its database or calling its code
	{trees: []string{"bench/verify"}, forbidden: systems},
	// its services mode (tradebench verify --services) calls a services host as a web tier
	// does: through the contract (trade) and the remote clients (trade/remote and its soap, rest,
	// grpcapi packages), and nothing of the server: not the service's code, its store, its order
	// processing nor the host that serves it
	{trees: []string{"bench/verifyservices"}, forbidden: concat([]string{"wstest", "cacheperf", "xmlmark"}, servicesServer)},
	// shared infrastructure: used by every group, so it imports none of them
	{trees: []string{"internal"}, forbidden: concat(instrument, systems, jobs, command)},
}

func concat(groups ...[]string) []string {
	var all []string
	for _, g := range groups {
		all = append(all, g...)
	}
	return all
}

// The imports are read in the test's own process with go/build (not by running `go list`), so
// the test cache sees every file the verdict rests on and an import added later reruns it.
func TestLayering(t *testing.T) {
	for _, r := range rules {
		t.Run(strings.Join(r.trees, ","), func(t *testing.T) {
			for _, v := range violations(t, r) {
				t.Error(v)
			}
		})
	}
}

// violations walks the rule's packages and everything of the module they import, and lists
// each forbidden package with the packages that import it, so the message points at the
// import to remove.
func violations(t *testing.T, r rule) []string {
	t.Helper()
	var queue []string
	for _, tree := range r.trees {
		err := filepath.WalkDir(filepath.Join(root, tree), func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			rel, _ := filepath.Rel(root, path)
			queue = append(queue, module+"/"+filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	importers := map[string][]string{}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		p, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, module))), 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				continue // a directory of directories
			}
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range p.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue // the standard library and other modules cannot import this one
			}
			importers[imp] = append(importers[imp], pkg)
			queue = append(queue, imp)
		}
	}
	var bad []string
	for pkg, by := range importers {
		if !under(pkg, r.forbidden) {
			continue
		}
		var direct []string
		for _, b := range by {
			if !under(b, r.forbidden) {
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
