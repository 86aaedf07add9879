package doccheck

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/tradebench/tradebench/internal/testing/headless"
)

// root is the module's directory, seen from this package's.
const root = "../.."

// documents returns README.md and every Markdown file under docs/, relative to root.
func documents(t *testing.T) []string {
	t.Helper()
	docs := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			docs = append(docs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// link is a link or image destination in a document.
type link struct {
	dest  string
	image bool
}

// links parses a Markdown document (a real parser, so code blocks and inline code are not
// mistaken for links) and returns its link and image destinations.
func links(src []byte) []link {
	var out []link
	doc := md.Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			out = append(out, link{dest: string(n.Destination)})
		case *ast.Image:
			out = append(out, link{dest: string(n.Destination), image: true})
		case *ast.RawHTML, *ast.HTMLBlock:
			// <img src="…"> written as HTML
			var b bytes.Buffer
			if r, ok := n.(*ast.RawHTML); ok {
				for i := 0; i < r.Segments.Len(); i++ {
					s := r.Segments.At(i)
					b.Write(s.Value(src))
				}
			} else {
				lines := n.Lines()
				for i := 0; i < lines.Len(); i++ {
					s := lines.At(i)
					b.Write(s.Value(src))
				}
			}
			for _, m := range htmlSrc.FindAllSubmatch(b.Bytes(), -1) {
				out = append(out, link{dest: string(m[2]), image: string(m[1]) == "src"})
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

var htmlSrc = regexp.MustCompile(`(?i)\b(src|href)="([^"]+)"`)

// Every relative link and image in README.md and docs/ names a file of the repository that
// exists. (Mutant: a link to docs/nonexistent.md added to README — the test names it.)
func TestRelativeLinksResolve(t *testing.T) {
	for _, doc := range documents(t) {
		src, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links(src) {
			u, err := url.Parse(l.dest)
			if err != nil {
				t.Errorf("%s: link %q does not parse: %v", doc, l.dest, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" || u.Path == "" {
				continue // an absolute URL, or an anchor in the same document
			}
			target := filepath.Join(root, filepath.Dir(doc), filepath.FromSlash(u.Path))
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %q: %s does not exist", doc, l.dest, filepath.Join(filepath.Dir(doc), u.Path))
			}
		}
	}
}

// The docs and the help texts speak to users, who never saw the project's issue tracker: no
// "(issue 15)" in them. (Mutant: "(issue 2)" added to a heading of docs/benchmarks.md.)
func TestNoInternalIssueNumbers(t *testing.T) {
	re := regexp.MustCompile(`\(issues? [0-9]`)
	files := documents(t)
	help, _ := filepath.Glob(filepath.Join(root, "cmd", "tradebench", "*.go"))
	for _, h := range help {
		if !strings.HasSuffix(h, "_test.go") {
			rel, _ := filepath.Rel(root, h)
			files = append(files, rel)
		}
	}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if re.MatchString(line) {
				t.Errorf("%s:%d names an internal issue: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// The README starts with the two commands a newcomer needs: the main job and the tests.
// (Mutant: the README's first code block without `scripts/test`.)
func TestReadmeStartsWithTheTwoCommands(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := md.Parser().Parse(text.NewReader(src))
	var first string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if cb, ok := n.(*ast.FencedCodeBlock); ok {
			var b strings.Builder
			for i := 0; i < cb.Lines().Len(); i++ {
				s := cb.Lines().At(i)
				b.Write(s.Value(src))
			}
			first = b.String()
			break
		}
	}
	lines := strings.Split(strings.TrimSpace(first), "\n")
	if len(lines) < 2 || !strings.Contains(lines[0], "tradebench run") || !strings.Contains(lines[1], "scripts/test") {
		t.Errorf("the README's first code block should be the main job then the tests, got:\n%s", first)
	}
}

// The README, rendered to HTML as a Markdown site would, shows its pictures: opened in headless
// Chromium, every image has loaded (a natural width above zero). (Mutant: the screenshot's file
// renamed — the image is broken and the test names it.)
func TestReadmeRendersWithItsPictures(t *testing.T) {
	bin := headless.Require(t)
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	if err := md.Convert(src, &body); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(body.Bytes(), []byte("<img")) {
		t.Fatal("the README shows no picture")
	}
	// The page sits beside README.md so relative image paths resolve as on a repository host.
	page := filepath.Join(root, ".readme-rendered-test.html")
	html := "<!doctype html><meta charset=utf-8><body>" + body.String() + `<script>
window.addEventListener("load", function () {
  var imgs = Array.from(document.images);
  var broken = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); }).map(function (i) { return i.getAttribute("src"); });
  var p = document.createElement("pre");
  p.id = "verdict";
  p.textContent = "images=" + imgs.length + " broken=" + JSON.stringify(broken);
  document.body.appendChild(p);
});
</script>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(page)
	dom, err := headless.DumpDOM(context.Background(), bin, page)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`images=(\d+) broken=(\[[^\]]*\])`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page's check did not run; DOM:\n%.2000s", dom)
	}
	if m[1] == "0" || m[2] != "[]" {
		t.Errorf("README images: %s, broken: %s", m[1], m[2])
	}
}
