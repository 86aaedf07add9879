package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// procReader is the one package that reads Linux's proc file system (issue 48): the machine's
// watch, the server finder, the disclosure, gctune and CachePerf all read /proc through it, so
// its parsing, its costs and its escaping of the names a local user sets are written once.
const procReader = "internal/procfs"

// TestOneProcReader fails on a file outside internal/procfs that names a path under /proc (a
// string literal starting "/proc", as os.Open("/proc/self/status") or root = "/proc" would),
// or imports github.com/prometheus/procfs beside it. Tests and the test helpers
// (internal/testing) may read /proc as they like: what they read checks the reader. A message
// mentioning /proc in the middle of its text ("no /proc") is not a path, and passes.
// Mutant (scripts/mutants.d/layering-proc-read-elsewhere): CachePerf writing
// /proc/self/clear_refs itself again fails it, naming the file.
func TestOneProcReader(t *testing.T) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") && path != root || rel == procReader || rel == "internal/testing" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			switch {
			case s == "github.com/prometheus/procfs" || strings.HasPrefix(s, "github.com/prometheus/procfs/"):
				t.Errorf("%s:%d imports %s: read /proc through %s", rel, fset.Position(lit.Pos()).Line, s, procReader)
			case s == "/proc" || strings.HasPrefix(s, "/proc/"):
				t.Errorf("%s:%d reads %q itself: read /proc through %s, the one reader", rel, fset.Position(lit.Pos()).Line, s, procReader)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
