package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
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

// notLoadJobs are the packages under bench/ that drive no load, so have no job entry: the
// conformance suites check a target request by request, and bench/internal helps their tests.
var notLoadJobs = []string{"bench/verify", "bench/verifyservices", "bench/internal"}

// TestJobShape checks the one job shape (docs/architecture.md, "Adding a workload"): every load
// job under bench/ has the entry
//
//	func Run(ctx context.Context, c Config, d driver.Config) (*report.Results, error)
//
// (its own settings by value, whatever their type's name; the drive's beside them) whose body
// calls driver.Drive, and the package declares the driver.Workload it hands over (a method
// Prepare(context.Context, *driver.Config) (*driver.Run, error)). A job that measured without
// Drive, or an entry of another shape, fails it, naming the package. Mutant:
// job-entry-bypasses-drive.
func TestJobShape(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join(root, "bench"))
	if err != nil {
		t.Fatal(err)
	}
	jobs := 0
	for _, d := range dirs {
		rel := "bench/" + d.Name()
		if !d.IsDir() || contains(notLoadJobs, rel) {
			continue
		}
		jobs++
		if why := jobShape(t, filepath.Join(root, rel)); why != "" {
			t.Errorf("%s: %s: every load job is Run(ctx context.Context, c Config, d driver.Config) (*report.Results, error) calling driver.Drive with the package's driver.Workload", rel, why)
		}
	}
	if jobs < 5 {
		t.Errorf("found %d load jobs under bench/, want the five (tradejob, smartclient, wstestjob, cacheperfjob, xmlmarkjob)", jobs)
	}
}

// jobShape says what of the job shape the package in dir lacks ("" when it has it all).
func jobShape(t *testing.T, dir string) string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	var run *ast.FuncDecl
	var runFile *ast.File
	workloads := 0 // methods that are a Workload's Prepare
	for _, f := range files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if fn.Recv == nil && fn.Name.Name == "Run" {
				run, runFile = fn, f
			}
			if fn.Recv != nil && fn.Name.Name == "Prepare" && isWorkloadPrepare(f, fn.Type) {
				workloads++
			}
		}
	}
	if run == nil {
		return "no func Run"
	}
	driverName := importName(runFile, module+"/driver")
	p, r := run.Type.Params.List, run.Type.Results
	var params []ast.Expr
	for _, field := range p {
		for range max(1, len(field.Names)) {
			params = append(params, field.Type)
		}
	}
	if len(params) != 3 || !isSel(params[0], importName(runFile, "context"), "Context") || !isSel(params[2], driverName, "Config") {
		return "Run's parameters are not (context.Context, Config, driver.Config)"
	}
	if _, ok := params[1].(*ast.Ident); !ok {
		return "Run's job settings are not a value of the package's own type (a pointer, or another package's)"
	}
	if r == nil || len(r.List) != 2 || !isStarSel(r.List[0].Type, importName(runFile, module+"/report"), "Results") {
		return "Run does not return (*report.Results, error)"
	}
	if workloads == 0 {
		return "no type has Prepare(context.Context, *driver.Config) (*driver.Run, error): the package declares no driver.Workload"
	}
	drives := false
	ast.Inspect(run.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && isSel(call.Fun, driverName, "Drive") {
			drives = true
		}
		return !drives
	})
	if !drives {
		return "Run does not call driver.Drive"
	}
	return ""
}

// isWorkloadPrepare: ft is func(context.Context, *driver.Config) (*driver.Run, error).
func isWorkloadPrepare(f *ast.File, ft *ast.FuncType) bool {
	d := importName(f, module+"/driver")
	var params []ast.Expr
	for _, field := range ft.Params.List {
		for range max(1, len(field.Names)) {
			params = append(params, field.Type)
		}
	}
	return d != "" && len(params) == 2 && isStarSel(params[1], d, "Config") &&
		ft.Results != nil && len(ft.Results.List) == 2 && isStarSel(ft.Results.List[0].Type, d, "Run")
}

// isSel: e is pkg.name.
func isSel(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && pkg != "" && x.Name == pkg && sel.Sel.Name == name
}

// isStarSel: e is *pkg.name.
func isStarSel(e ast.Expr, pkg, name string) bool {
	star, ok := e.(*ast.StarExpr)
	return ok && isSel(star.X, pkg, name)
}
