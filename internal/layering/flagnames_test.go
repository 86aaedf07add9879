package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A library's configuration is set by the command line, a test, an agent or another program,
// so its errors name the setting (a *setting.Error's field) and the command maps the field to
// its flag (cliflag.Names): an error that names a flag is wrong everywhere but on the command
// line, and goes stale when the flag is renamed. This test reads the string literals (alone or
// joined by +) given to fmt.Errorf, errors.New, setting.Errorf and recorder.Failf (a failure a
// run's results carry) outside cmd/ and the command
// line's own toolkit (internal/cliflag), and fails on one that names a flag
// ("--service-token-file"). It does not follow constants or messages built elsewhere.
//
// flagErrorsPending are the files that still do, each to be mended by whoever owns it; a file
// listed here that no longer names a flag is simply not reported.
var flagErrorsPending = map[string]bool{}

var flagInText = regexp.MustCompile(`(^|[\s(:'"])--[a-z][a-z0-9-]+`)

// Mutants: trade/server/token.go's missing-token error naming --service-token-file again fails
// it (libflag-service-token), and so does internal/httpc's kept-body error naming --body-budget
// (libflag-body-budget).
func TestLibraryErrorsNameNoFlag(t *testing.T) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") && path != root || rel == "cmd" || rel == "internal/cliflag" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || flagErrorsPending[rel] {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !errorCall(call) {
				return true
			}
			for _, a := range call.Args {
				if s, ok := literalText(a); ok && flagInText.MatchString(s) {
					t.Errorf("%s:%d: a library error names a command-line flag (%s): name the setting, and let cmd map it to its flag",
						rel, fset.Position(a.Pos()).Line, strings.TrimSpace(flagInText.FindString(s)))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// literalText is the text of a string literal, or of literals joined by + (a long message
// written over two lines).
func literalText(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok := literalText(e.X)
		if !ok {
			return "", false
		}
		y, ok := literalText(e.Y)
		return x + y, ok
	case *ast.ParenExpr:
		return literalText(e.X)
	}
	return "", false
}

// errorCall reports whether call makes an error from a message: fmt.Errorf, errors.New,
// setting.Errorf, or recorder.Failf (a transaction's failure, shown in the results).
func errorCall(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	switch x.Name + "." + sel.Sel.Name {
	case "fmt.Errorf", "errors.New", "setting.Errorf", "recorder.Failf":
		return true
	}
	return false
}
