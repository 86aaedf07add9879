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

// The one pipeline: a run is put together in one place, driver/pipeline.go (driver.Drive), for
// every job. Only it runs the load engine (load.Run; an agent's share runs through driver.Plan.Run),
// fills the disclosure (disclose.Fill) and draws the progress line and the live views (the
// watchers it composes): a job that called the engine itself would skip the preflight, the
// repeats, the verdict or the interruption, as the smart client's drive once did.
var pipelineOnly = []struct {
	pkg, name string   // the call ("" name: any use of the package)
	allowed   []string // the files that may make it
}{
	{"driver/load", "Run", []string{"driver/pipeline.go", "driver/driver.go"}},
	{"driver/disclose", "Fill", []string{"driver/pipeline.go"}},
	// the run's progress line; the package's Count, a load's rows or items counted to a total
	// (tradebench load, cacheperf load, the sweep's temporary database), is no run's and is free
	{"driver/progress", "Line", []string{"driver/pipeline.go"}},
	{"driver/live", "", []string{"driver/pipeline.go", "driver/fleet/agent.go"}},
}

// TestOnePipeline checks that outside the pipeline no file of the module calls what only the
// pipeline may (tests and the packages themselves aside). Mutant: a job calling load.Run or
// disclose.Fill itself fails it, naming the file.
func TestOnePipeline(t *testing.T) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, rule := range pipelineOnly {
			if strings.HasPrefix(rel, rule.pkg+"/") || contains(rule.allowed, rel) {
				continue
			}
			name := importName(f, module+"/"+rule.pkg)
			if name == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && (rule.name == "" || sel.Sel.Name == rule.name) {
					t.Errorf("%s uses %s.%s: only the pipeline (driver.Drive, %s) may", rel, rule.pkg, sel.Sel.Name, strings.Join(rule.allowed, ", "))
					return false
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// importName is the name f refers to the package at path by ("" when f does not import it).
func importName(f *ast.File, path string) string {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			if im.Name != nil {
				return im.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
