// Command testtime reads `go test -json` on its standard input and writes what plain `go test`
// would (each package's closing `ok`/`FAIL` line, the output of the tests that failed, build
// errors), then where the time went: the slowest packages and tests, and how many tests passed,
// failed and were skipped. scripts/test pipes every `go test` through it, so each CI log says
// what the test budget is spent on (docs/guide.md, "The CI budget").
//
// Usage: go test -json ./... | go run ./scripts/testtime [-top N] [-label NAME]
//
// It exits 1 when a test or a package failed or did not build, 0 otherwise; scripts/test also
// keeps go test's own exit status (pipefail), so a run cut short fails even if what it wrote
// parses cleanly.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	top := flag.Int("top", 10, "how many of the slowest packages and tests to list")
	label := flag.String("label", "go test", "what the summary calls this run")
	flag.Parse()
	if flag.NArg() != 0 || *top < 0 {
		fmt.Fprintln(os.Stderr, "usage: go test -json ... | testtime [-top N] [-label NAME]")
		os.Exit(2)
	}
	s, err := read(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtime:", err)
		os.Exit(2)
	}
	s.summary(os.Stdout, *label, *top)
	if s.failed() {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json's TestEvent, and the build events of
// `go test -json`).
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64 // seconds
	Output      string
	ImportPath  string // build-output, build-fail
	FailedBuild string // a package's fail: the package that did not build
}

// maxLine bounds one line of input: a longer line (no test writes one; a JSON event holds at
// most one line of a test's output) is passed through cut, not held whole in memory.
const maxLine = 1 << 20

// test is one test's (or subtest's) state while its package runs.
type test struct {
	name   string
	output []string // dropped when it passes or skips; printed if it fails or never ends
	action string   // pass, fail or skip once it ended
}

// pkg is one package's state while it runs.
type pkg struct {
	tests  map[string]*test
	order  []*test  // by first event, the order go test prints failures in
	output []string // the package's own lines: PASS/FAIL, ok/FAIL, a panic outside any test
}

// timing is one finished package or test and its wall time.
type timing struct {
	name string
	secs float64
}

// stats is the whole run.
type stats struct {
	running                   map[string]*pkg
	pkgs                      []timing // packages that ran (not cached)
	tests                     []timing // top-level tests of packages that ran
	cached, noTests           int
	pkgFailed, buildFailed    int
	passed, failedN, skippedN int      // tests and subtests
	failures                  []string // "pkg Test" of each failed test, and each failed package
}

// read copies the run's plain output to w as events arrive and collects the timings.
func read(r io.Reader, w io.Writer) (*stats, error) {
	s := &stats{running: map[string]*pkg{}}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			var e event
			if line[0] != '{' || json.Unmarshal(line, &e) != nil || e.Action == "" {
				fmt.Fprintf(w, "%s\n", line) // not an event: go's own message, passed through
			} else {
				s.event(e, w)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, err
		}
	}
	// A package with no closing event: the run was cut short. Show what it wrote.
	for name, p := range s.running {
		fmt.Fprintf(w, "testtime: %s never finished; its output:\n", name)
		p.printFailures(w)
		s.pkgFailed++
		s.failures = append(s.failures, name+" (never finished)")
	}
	return s, nil
}

// readLine returns the next line without its newline, at most maxLine bytes of it.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, more, err := br.ReadLine()
		line = append(line, frag[:min(len(frag), maxLine-len(line))]...)
		if err != nil || !more {
			return line, err
		}
	}
}

func (s *stats) event(e event, w io.Writer) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(w, e.Output)
		return
	case "build-fail":
		s.buildFailed++
		return
	}
	p := s.running[e.Package]
	if p == nil {
		p = &pkg{tests: map[string]*test{}}
		s.running[e.Package] = p
	}
	if e.Test == "" {
		s.pkgEvent(p, e, w)
		return
	}
	t := p.tests[e.Test]
	if t == nil {
		t = &test{name: e.Test}
		p.tests[e.Test] = t
		p.order = append(p.order, t)
	}
	switch e.Action {
	case "output":
		if t.action == "" || t.action == "fail" {
			t.output = append(t.output, e.Output)
		}
	case "pass", "skip":
		t.action, t.output = e.Action, nil
	case "fail":
		t.action = e.Action
	}
	switch e.Action {
	case "pass":
		s.passed++
	case "fail":
		s.failedN++
		s.failures = append(s.failures, e.Package+" "+e.Test)
	case "skip":
		s.skippedN++
	}
	if (e.Action == "pass" || e.Action == "fail") && !strings.Contains(e.Test, "/") {
		s.tests = append(s.tests, timing{e.Package + " " + e.Test, e.Elapsed})
	}
}

func (s *stats) pkgEvent(p *pkg, e event, w io.Writer) {
	switch e.Action {
	case "output":
		p.output = append(p.output, e.Output)
		return
	case "pass", "fail", "skip":
	default:
		return
	}
	delete(s.running, e.Package)
	cached := false
	for _, l := range p.output {
		if strings.HasPrefix(l, "ok ") && strings.Contains(l, "(cached)") {
			cached = true
		}
	}
	switch {
	case e.Action == "fail":
		s.pkgFailed++
		s.failures = append(s.failures, e.Package)
		if e.FailedBuild != "" {
			fmt.Fprintf(w, "FAIL\t%s [build failed]\n", e.Package)
			return
		}
		p.printFailures(w)
	case e.Action == "skip" && len(p.tests) == 0:
		s.noTests++
		p.printClosing(w)
		return
	default:
		p.printClosing(w)
	}
	if cached {
		s.cached++
		// a cached package replays its tests' events with the times of the run that was
		// cached; this run spent nothing on them
		s.dropTests(e.Package)
		return
	}
	s.pkgs = append(s.pkgs, timing{e.Package, e.Elapsed})
}

// dropTests removes the timings of pkg's tests.
func (s *stats) dropTests(name string) {
	kept := s.tests[:0]
	for _, t := range s.tests {
		if !strings.HasPrefix(t.name, name+" ") {
			kept = append(kept, t)
		}
	}
	s.tests = kept
}

// printClosing writes a passing package's closing line, as plain go test does.
func (p *pkg) printClosing(w io.Writer) {
	for _, l := range p.output {
		if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "?") {
			fmt.Fprint(w, l)
		}
	}
}

// printFailures writes the output of each test that failed or never ended (a test that passed
// or skipped holds none), then the package's own lines (a panic outside a test, FAIL, the
// closing FAIL line).
func (p *pkg) printFailures(w io.Writer) {
	for _, t := range p.order {
		for _, l := range t.output {
			fmt.Fprint(w, l)
		}
	}
	for _, l := range p.output {
		fmt.Fprint(w, l)
	}
}

func (s *stats) failed() bool {
	return s.failedN > 0 || s.pkgFailed > 0 || s.buildFailed > 0
}

// summary writes the slowest packages and tests and the counts.
func (s *stats) summary(w io.Writer, label string, top int) {
	slowest := func(title string, ts []timing) {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].secs > ts[j].secs })
		if len(ts) > top {
			ts = ts[:top]
		}
		if len(ts) == 0 {
			return
		}
		fmt.Fprintf(w, "%s: the %d slowest %s (wall time, s)\n", label, len(ts), title)
		for _, t := range ts {
			fmt.Fprintf(w, "%9.1f  %s\n", t.secs, t.name)
		}
	}
	slowest("packages", s.pkgs)
	slowest("tests", s.tests)
	fmt.Fprintf(w, "%s: %d packages ran, %d cached, %d without tests, %d failed; tests and subtests: %d passed, %d failed, %d skipped\n",
		label, len(s.pkgs), s.cached, s.noTests, s.pkgFailed, s.passed, s.failedN, s.skippedN)
	for _, f := range s.failures {
		fmt.Fprintf(w, "%s: FAIL %s\n", label, f)
	}
}
