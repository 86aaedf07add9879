package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The inputs are real `go test -json ./...` output of a small module: tt/a passes (a test that
// logs and sleeps 0.3 s, a subtest skipped), tt/b has a failing subtest, tt/c does not build,
// tt/d has no tests; cached.json is tt/a and tt/d run again from the test cache.
func runFile(t *testing.T, name string) (*stats, string) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	s, err := read(f, &out)
	if err != nil {
		t.Fatal(err)
	}
	s.summary(&out, "go test", 10)
	return s, out.String()
}

// A passing package shows only its closing line, as plain go test does; a failing one shows
// its failed tests' output and its FAIL line; a build failure shows the compiler's message.
// (Mutant: printFailures for every package — a passing test's log appears.)
func TestPlainOutput(t *testing.T) {
	s, out := runFile(t, "run.json")
	for _, want := range []string{
		"ok  \ttt/a\t0.315s\n",
		"    b_test.go:4: shown\n",
		"    b_test.go:4: boom\n",
		"FAIL\ttt/b\t0.006s\n",
		"c/c_test.go:3:27: undefined: undefined\n",
		"FAIL\ttt/c [build failed]\n",
		"?   \ttt/d\t[no test files]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, hidden := range []string{"quiet", "hidden", "--- PASS"} {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, hidden) {
				t.Errorf("output shows %q, the log of a test that passed: %q", hidden, l)
			}
		}
	}
	if !s.failed() {
		t.Error("a run with a failed test and a build failure is not failed")
	}
}

// The counts take subtests one by one; the slowest test is the one that slept; the failed
// tests and packages are listed by name.
func TestSummary(t *testing.T) {
	s, out := runFile(t, "run.json")
	if s.passed != 4 || s.failedN != 2 || s.skippedN != 1 {
		t.Errorf("passed %d failed %d skipped %d, want 4 2 1", s.passed, s.failedN, s.skippedN)
	}
	if s.pkgFailed != 2 || len(s.pkgs) != 2 || s.noTests != 1 {
		t.Errorf("packages: %d failed, %d ran, %d without tests; want 2 2 1", s.pkgFailed, len(s.pkgs), s.noTests)
	}
	want := "go test: the 4 slowest tests (wall time, s)\n      0.3  tt/a TestOK\n"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	for _, f := range []string{"go test: FAIL tt/b TestBad/inner\n", "go test: FAIL tt/b TestBad\n", "go test: FAIL tt/c\n"} {
		if !strings.Contains(out, f) {
			t.Errorf("output lacks %q:\n%s", f, out)
		}
	}
}

// A cached package's tests count (they passed) but its time does not: this run spent none.
func TestCachedPackageHasNoTime(t *testing.T) {
	s, out := runFile(t, "cached.json")
	if s.cached != 1 || len(s.pkgs) != 0 || len(s.tests) != 0 {
		t.Errorf("cached %d, timed packages %v, timed tests %v; want 1 cached and nothing timed", s.cached, s.pkgs, s.tests)
	}
	if s.passed != 3 || s.failed() {
		t.Errorf("passed %d, failed %v; want 3 passed and not failed", s.passed, s.failed())
	}
	if !strings.Contains(out, "ok  \ttt/a\t(cached)\n") {
		t.Errorf("output lacks the cached closing line:\n%s", out)
	}
}

// A run cut short (the input ends inside a package) fails, and the unfinished test's output is
// shown: a timeout's panic is in it.
func TestCutShortFails(t *testing.T) {
	b, err := os.ReadFile("testdata/run.json")
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"Package":"tt/a"`) && strings.Contains(l, `"Test":"TestOK"`) {
			in = append(in, l)
			if strings.Contains(l, "quiet") {
				break
			}
		}
	}
	var out bytes.Buffer
	s, err := read(strings.NewReader(strings.Join(in, "\n")), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !s.failed() {
		t.Error("a run cut short inside tt/a is not failed")
	}
	if !strings.Contains(out.String(), "tt/a never finished") || !strings.Contains(out.String(), "quiet") {
		t.Errorf("the unfinished package's output is not shown:\n%s", out.String())
	}
}

// A line that is not an event (go's own message) is passed through; a line past maxLine is cut,
// not held whole.
func TestOtherLines(t *testing.T) {
	long := strings.Repeat("x", maxLine+10)
	var out bytes.Buffer
	if _, err := read(strings.NewReader("go: downloading example.com/m v1\n"+long+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if lines[0] != "go: downloading example.com/m v1" || len(lines[1]) != maxLine {
		t.Errorf("got %q and a line of %d bytes; want the message and a line of %d", lines[0], len(lines[1]), maxLine)
	}
}
