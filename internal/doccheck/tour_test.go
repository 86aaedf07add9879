package doccheck

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tourBinary builds tradebench once for the tour's tests (scripts/tour takes it as TOUR_BIN), or
// takes the one TOUR_BIN names: CI builds it once from the tree for its tour, and this test. It
// is stat'ed so that go test's cache keys this package's result on the binary too (a rebuilt
// one reruns the tests). The tour script is read for the same reason: the tests run it.
func tourBinary(t *testing.T) string {
	t.Helper()
	if _, err := os.ReadFile(filepath.Join(root, "scripts", "tour")); err != nil {
		t.Fatal(err)
	}
	if bin := os.Getenv("TOUR_BIN"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("TOUR_BIN: %v", err)
		}
		return bin
	}
	bin := filepath.Join(t.TempDir(), "tradebench")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/tradebench")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runTour runs scripts/tour on a README written from body (its tour block) with bin as
// tradebench, keeping its directory; it returns the exit status, the output and the directory
// the commands ran in.
func runTour(t *testing.T, bin, body string) (code int, out, work string) {
	t.Helper()
	readme := filepath.Join(t.TempDir(), "README.md")
	if err := os.WriteFile(readme, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "tour"), readme)
	cmd.Env = append(os.Environ(), "TOUR_BIN="+bin, "TOUR_KEEP=1", "TMPDIR="+tmp)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("scripts/tour: %v\n%s", err, b.String())
	}
	m := regexp.MustCompile(`tour: kept (\S+)`).FindStringSubmatch(b.String())
	if m == nil {
		t.Fatalf("scripts/tour did not say where it kept its directory:\n%s", b.String())
	}
	return code, b.String(), filepath.Join(m[1], "work")
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// listening reports whether addr takes connections.
func listening(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// killListener ends a process left listening with addr on its command line (a tour that did
// not stop its background command), so a failed test leaves nothing running.
func killListener(addr string) {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte(addr)) || !bytes.Contains(b, []byte("wstest")) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestTourRunsTheBlockAsWritten: scripts/tour runs the tour block of a README as a reader's shell
// would — a continuation line joined, comments left out but a # inside quotes kept, an export
// seen by the lines after it, a server started with & waited for until its --listen address takes
// connections (it starts a second late here, so a tour that does not wait fails the drive's
// preflight) and stopped at the end — and nothing after the block's closing fence; it prints each
// command's time and status and closes with "tour: 5 passed, 0 failed". A run judged invalid
// (exit 6) ran as written and passes, said so; a command that exits 2 fails the tour (exit 1),
// naming the command and its status, and the lines after it do not run.
// Mutants: tour-exit-ignored (a failed command's status not checked), tour-no-wait (a background
// command not waited for), tour-lines-unjoined (continuation lines run apart), tour-bg-left (the
// background commands not stopped at the end).
func TestTourRunsTheBlockAsWritten(t *testing.T) {
	bin := tourBinary(t)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	defer killListener(addr)

	code, out, work := runTour(t, bin, fmt.Sprintf("# a README\n\n## A tour\n\nText.\n\n```sh\n"+
		"# a comment line\n"+
		"echo 'kept # not a comment' > quoted.txt     # a trailing comment\n"+
		"export TOUR_SEEN=exported\n"+
		"sleep 1 && tradebench wstest serve --grpc-listen '' --listen %[1]s &     # a server, in the background\n"+
		"echo \"$TOUR_SEEN\" > exported.txt\n"+
		"tradebench drive --url http://%[1]s/ \\\n"+
		"  -c 1 -d 1s --progress off --out quick.json\n"+
		"```\n\n```sh\ntouch not-the-tour.txt\n```\n\n## Next\n", addr))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{"tour: 5 passed, 0 failed", "tour: [3] running in the background", "tour: [3] stopped", "tour: [5] exit 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^ +[0-9.]+ s  exit 0 +\[5\] tradebench drive --url http://\S+/ -c 1 -d 1s --progress off --out quick.json$`).MatchString(out) {
		t.Errorf("no time and status for the joined drive command:\n%s", out)
	}
	for file, want := range map[string]string{"quoted.txt": "kept # not a comment\n", "exported.txt": "exported\n"} {
		if b, err := os.ReadFile(filepath.Join(work, file)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", file, b, err, want)
		}
	}
	for file, want := range map[string]bool{"quick.json": true, "not-the-tour.txt": false} {
		if _, err := os.Stat(filepath.Join(work, file)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", file, err == nil, want)
		}
	}
	if listening(addr) {
		t.Errorf("the background server still listens on %s after the tour", addr)
	}

	code, out, work = runTour(t, bin, "## A tour\n\n```sh\n"+
		"bash -c 'exit 6'     # a run judged invalid: it ran as written\n"+
		"tradebench drive --users 1 --url http://127.0.0.1:1/ -d 1s\n"+
		"touch never.txt\n```\n")
	if code != 1 || !strings.Contains(out, "tour: [1] verdict invalid (exit 6)") || !strings.Contains(out, "tour: [2] FAILED with exit status 2: tradebench drive --users 1") || !strings.Contains(out, "tour: 1 passed, 1 failed") {
		t.Errorf("a command exiting 6, then one exiting 2: the tour exited %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(work, "never.txt")); err == nil {
		t.Errorf("the tour ran on after a failed command")
	}
}

// TestReadmeTourListsItsCommands: the README's own tour block is what scripts/tour reads: every
// line it extracts is a tradebench command, the fleet token's export or a printf writing a CSV
// data file, and the tour has the commands the README promises (the capacity search, the
// comparison, the split deployment, quick mode with a data feeder and stages, the fleet). A tour block renamed or moved out from under its heading is seen here,
// before CI would run nothing.
func TestReadmeTourListsItsCommands(t *testing.T) {
	out, err := exec.Command("bash", filepath.Join(root, "scripts", "tour"), "--list", filepath.Join(root, "README.md")).CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/tour --list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range lines {
		dataFile := strings.HasPrefix(l, "printf '") && strings.HasSuffix(l, ".csv")
		if !strings.HasPrefix(l, "tradebench ") && !strings.HasPrefix(l, "export TRADEBENCH_NATS_TOKEN=") && !dataFile {
			t.Errorf("the tour's line %q is neither a tradebench command, the token's export nor a CSV data file", l)
		}
	}
	joined := strings.Join(lines, "\n")
	for _, want := range []string{"tradebench run\n", "tradebench report compare ", "tradebench serve --role web ", "tradebench drive --url ", "--data ", "--stages ", "tradebench agent ", "--agents 2 "} {
		if !strings.Contains(joined, want) {
			t.Errorf("the tour has no %q:\n%s", want, joined)
		}
	}
}
