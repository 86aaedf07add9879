//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair: the master, which the test reads and never writes, and
// the slave, the terminal the child runs on.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Fatalf("unlocking the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		t.Fatalf("numbering the pseudo-terminal: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m, s
}

// TestNoTerminalQueryOnAQuietTerminal: a command run on a terminal that never answers (a
// pseudo-terminal nobody reads for the user: script(1), a pre-commit hook, a relayed ssh -tt)
// prints its own output and nothing else. Bubble Tea v1 asked the terminal for its background
// colour and the cursor's position (ESC ] 11 ; ? ESC \ and ESC [ 6 n) in a package init, so
// every command, even `version`, wrote those bytes and then waited 5 s for the answer; the smart
// client's terminal UI (trade/tui) now asks nothing before it runs. The test reads every byte the
// command writes to the terminal and looks for an escape: a query is an escape sequence, so one
// written at init cannot pass, however fast the machine.
// Mutant: tui-init-terminal-query (an init in trade/tui writes the background-colour query).
func TestNoTerminalQueryOnAQuietTerminal(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--help"}, {"run", "--users", "nonsense"}} {
		master, slave := openPTY(t)
		cmd := exec.Command(os.Args[0], args...)
		var env []string
		for _, kv := range os.Environ() {
			// termenv-style detection skips the query when CI is set or TERM names a multiplexer
			// or a dumb terminal: the user's terminal is an ordinary xterm.
			if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "TERM=") {
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, smokeMainEnv+"=1", "TERM=xterm-256color")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		// its own session with the pseudo-terminal as its controlling terminal, in the foreground,
		// as a shell would run it
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		slave.Close()
		var out bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			out.Write(buf[:n])
			if err != nil { // EIO once the command has exited and closed the terminal
				break
			}
		}
		master.Close()
		err := cmd.Wait()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		if i := bytes.IndexByte(out.Bytes(), 0x1b); i >= 0 {
			t.Errorf("tradebench %s wrote an escape sequence to a terminal that answers nothing (%q): a terminal query waits for its timeout there\n%q",
				strings.Join(args, " "), out.Bytes()[i:min(len(out.Bytes()), i+16)], out.String())
		}
		if !bytes.Contains(out.Bytes(), []byte("tradebench")) {
			t.Errorf("tradebench %s printed nothing of its own on the terminal: %q", strings.Join(args, " "), out.String())
		}
	}
}
