// Command funclen lists the hand-written Go functions longer than a bound and the files longer
// than another, so that what a reader must hold in mind at once stays small:
//
//	go run ./internal/tools/funclen [-func 100] [-file 700] [DIR...]
//
// It reads every .go file under each DIR (default "."), skipping tests, testdata, hidden and
// vendor directories, and generated code (*_templ.go, *.pb.go and any file with the standard
// "// Code generated … DO NOT EDIT." header): generated code is read by no one. A function's
// length is its lines from `func` to its closing brace; a file's is its lines. The list is
// longest first; the exit status is 1 when anything is over its bound, so CI can hold the line.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Long is one function or file over its bound.
type Long struct {
	Path  string // the file, slash-separated and relative to the directory scanned
	Line  int    // where the function starts (1 for a file)
	Name  string // the function (Type.Method for a method); "" for a whole file
	Lines int
}

func (l Long) String() string {
	if l.Name == "" {
		return fmt.Sprintf("%s: %d lines (file)", l.Path, l.Lines)
	}
	return fmt.Sprintf("%s:%d: %s %d lines", l.Path, l.Line, l.Name, l.Lines)
}

// Scan lists the functions under root longer than maxFunc lines and the files longer than
// maxFile, each list longest first.
func Scan(root string, maxFunc, maxFile int) (funcs, files []Long, err error) {
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_templ.go") || strings.HasSuffix(name, ".pb.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if n := fset.File(f.Pos()).LineCount(); n > maxFile {
			files = append(files, Long{Path: rel, Line: 1, Lines: n})
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
			if n := end - start + 1; n > maxFunc {
				funcs = append(funcs, Long{Path: rel, Line: start, Name: funcName(fd), Lines: n})
			}
		}
		return nil
	})
	longestFirst := func(a, b Long) int {
		return cmp.Or(cmp.Compare(b.Lines, a.Lines), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	}
	slices.SortFunc(funcs, longestFirst)
	slices.SortFunc(files, longestFirst)
	return funcs, files, err
}

// funcName is fd's name, Type.Method for a method (pointer or not, type parameters dropped).
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}

// run is the command: it writes the report to w and returns the exit status.
func run(args []string, w, errw io.Writer) int {
	fset := flag.NewFlagSet("funclen", flag.ContinueOnError)
	fset.SetOutput(errw)
	maxFunc := fset.Int("func", 100, "list functions longer than this many lines")
	maxFile := fset.Int("file", 700, "list files longer than this many lines")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if *maxFunc < 1 || *maxFile < 1 {
		fmt.Fprintln(errw, "funclen: -func and -file must be at least 1")
		return 2
	}
	dirs := fset.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	over := 0
	for _, dir := range dirs {
		funcs, files, err := Scan(dir, *maxFunc, *maxFile)
		if err != nil {
			fmt.Fprintf(errw, "funclen: %v\n", err)
			return 2
		}
		fmt.Fprintf(w, "%s: %d functions over %d lines, %d files over %d lines\n", dir, len(funcs), *maxFunc, len(files), *maxFile)
		for _, l := range append(funcs, files...) {
			fmt.Fprintf(w, "  %s\n", l)
		}
		over += len(funcs) + len(files)
	}
	if over > 0 {
		return 1
	}
	return 0
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
