// Package reexec starts the running test binary again as a child process — a real server, a
// busy process — whose TestMain turns into what an environment variable asks for, so a test
// can measure another process over real sockets and /proc without a second program to build.
package reexec

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Start runs this test binary again with env added, kills it (and waits for it) when the test
// ends, and returns its pid and the first line it prints on stdout, trimmed: a child says there
// where it listens, or "ERR …" when it could not (the caller decides whether that fails the
// test). It fails the test when the child cannot start or prints nothing.
func Start(t testing.TB, env ...string) (pid int, line string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	l, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("child %v printed no line: %v", env, err)
	}
	return cmd.Process.Pid, strings.TrimSpace(l)
}
