package driver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/untrusted"
)

// TestQuickBody: --body's text is sent as given, @FILE sends the file's bytes, an empty body or
// file is no body, a missing file names its path, and a file past MaxQuickBody is refused before
// it is held in memory whole. Mutant (quick-body-file-as-text): the @ prefix not recognised —
// the body would be the text "@FILE".
func TestQuickBody(t *testing.T) {
	dir := t.TempDir()
	file, empty, big := filepath.Join(dir, "req.xml"), filepath.Join(dir, "empty"), filepath.Join(dir, "big")
	os.WriteFile(file, []byte("<a>\x00</a>"), 0o600)
	os.WriteFile(empty, nil, 0o600)
	f, _ := os.Create(big)
	f.Truncate(MaxQuickBody + 1) // sparse: no disk written
	f.Close()
	for arg, want := range map[string]string{"x=1": "x=1", "@" + file: "<a>\x00</a>", "": "", "@" + empty: ""} {
		b, err := QuickBody(arg)
		if err != nil || string(b) != want || (want == "") != (b == nil) {
			t.Errorf("QuickBody(%q) = %q, %v; want %q", arg, b, err, want)
		}
	}
	if _, err := QuickBody("@" + filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := QuickBody("@" + big); !errors.Is(err, untrusted.ErrTooLarge) {
		t.Errorf("a file past the bound: %v", err)
	}
}

// TestQuickHeadersChecked: quick mode's -H lines are checked before anything is sent. Header
// names are case-insensitive, so a header given twice in two cases is refused, and so is a header
// the driver writes itself (Host, Content-Length, …) in any case; a value with a control
// character (vertical tab, DEL) is refused, as a line break is. Mutants:
// quick-duplicate-header-case, quick-driver-headers-lower-only, quick-header-controls-raw.
func TestQuickHeadersChecked(t *testing.T) {
	for _, c := range []struct {
		headers []string
		want    string // "" = accepted
	}{
		{[]string{"Accept: a", "X-Trace: 1\tb"}, ""},
		{[]string{"accept: a", "Accept: b"}, "given twice"},
		{[]string{"X-A: 1", "x-a: 2"}, "given twice"},
		{[]string{"HOST: x"}, "written by the driver"},
		{[]string{"Content-Length: 0"}, "written by the driver"},
		{[]string{"Transfer-Encoding: chunked"}, "written by the driver"},
		{[]string{"X-A: a\vb"}, "control character"},
		{[]string{"X-A: a\x7fb"}, "control character"},
		{[]string{"X-A: a\x00b"}, "control character"},
		{[]string{"X-A: a\r\nX-B: b"}, "line break"},
	} {
		err := (&QuickRequest{Headers: c.headers}).validate(true)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("headers %q: %v, want %q", c.headers, err, c.want)
		}
	}
}

// TestQuickBodyTemplate: with BodyTemplate quick mode's body is a template as a scenario's: a
// run-wide counter numbers the requests 0, 1, 2, … without a gap or a repeat across users, and
// a pick sends only the words given, each of them; without it the same text goes out braces and
// all. Mutant (quick-body-template-ignored): the body always a literal.
func TestQuickBodyTemplate(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	body := `{"n":{{counter n}},"side":"{{pick buy sell}}"}`
	for _, tmpl := range []bool{true, false} {
		bodies = nil
		_, err := Drive(context.Background(), Config{URL: srv.URL + "/o", Request: &QuickRequest{Body: []byte(body), BodyTemplate: tmpl},
			Iterations: 20, Phases: Phases{Users: 3, Duration: time.Minute}}, HTTP)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := slices.Clone(bodies)
		mu.Unlock()
		if !tmpl {
			for _, b := range got {
				if b != body {
					t.Fatalf("a literal body was sent as %q", b)
				}
			}
			continue
		}
		re := regexp.MustCompile(`^\{"n":(\d+),"side":"(buy|sell)"\}$`)
		seen, sides := map[int]bool{}, map[string]int{}
		for _, b := range got {
			m := re.FindStringSubmatch(b)
			if m == nil {
				t.Fatalf("a templated body was sent as %q", b)
			}
			n, _ := strconv.Atoi(m[1])
			seen[n] = true
			sides[m[2]]++
		}
		for i := range len(got) {
			if !seen[i] {
				t.Fatalf("the counter skipped %d (or repeated another) in %d requests: %v", i, len(got), got)
			}
		}
		if len(got) < 40 || sides["buy"] == 0 || sides["sell"] == 0 {
			t.Errorf("%d requests, picks %v", len(got), sides)
		}
	}
}
