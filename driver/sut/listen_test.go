package sut

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/reexec"
)

// listenerChild starts this test binary again as a server listening on a loopback port (kind
// listen4: 127.0.0.1, listen6: [::1]) and returns its pid and address ("" when the machine has
// no such loopback).
func listenerChild(t *testing.T, kind string, env ...string) (int, string) {
	t.Helper()
	pid, line := reexec.Start(t, append([]string{childEnv + "=" + kind}, env...)...)
	if strings.HasPrefix(line, "ERR") {
		return pid, ""
	}
	return pid, line
}

// freePort is a loopback port nothing listens on (it was free a moment ago).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// A real server in a child process, listening on 127.0.0.1 (and on [::1] where the machine has
// it), is found by its port: its pid and command name, under every way a target names that
// address (a URL with a path, localhost, host:port). A server on [::1] only is not what a target
// on 127.0.0.1 reaches.
// Mutant (scripts/mutants.d/sut-finder-finds-nothing): no process's descriptor matched — the
// child was not found.
func TestFindListeners(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	pid, addr := listenerChild(t, "listen4")
	if addr == "" {
		t.Fatal("the child could not listen on 127.0.0.1")
	}
	_, port, _ := net.SplitHostPort(addr)
	for _, target := range []string{"http://" + addr + "/trade/app?x=1", "http://localhost:" + port, addr, "https://0.0.0.0:" + port} {
		ls, err := FindListeners("", target)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if len(ls) != 1 || ls[0].PID != pid || ls[0].Name != filepath.Base(os.Args[0])[:min(15, len(filepath.Base(os.Args[0])))] {
			t.Fatalf("%s: found %+v, want pid %d named after %s", target, ls, pid, os.Args[0])
		}
	}
	ls, _ := FindListeners("", "http://"+addr)
	if want := ls[0].Name + " (pid " + strconv.Itoa(pid) + "), listening on " + addr + " — found by its port"; ls[0].String() != want {
		t.Errorf("String() = %q, want %q", ls[0].String(), want)
	}
	if src := ls[0].Source(""); src.PID() != pid || src.Listen != addr || src.Origin() != "proc" {
		t.Errorf("Source: %+v", src)
	}

	pid6, addr6 := listenerChild(t, "listen6")
	if addr6 == "" {
		t.Log("no IPv6 loopback here: [::1] not tried")
		return
	}
	ls, err := FindListeners("", "http://"+addr6+"/")
	if err != nil || len(ls) != 1 || ls[0].PID != pid6 {
		t.Fatalf("[::1]: found %+v, %v; want pid %d", ls, err, pid6)
	}
	_, port6, _ := net.SplitHostPort(addr6)
	if ls, err := FindListeners("", "http://127.0.0.1:"+port6); err == nil {
		t.Errorf("a server on [::1] only was found for 127.0.0.1: %+v", ls)
	}
}

// Local is the one answer to "is this address on this machine": a loopback address, localhost
// or the unspecified address, in a URL or host:port; anything else, or no address, is not. The
// machine's watch asks it of a scraped server's URL, FindListeners of a drive's target.
func TestLocal(t *testing.T) {
	for target, want := range map[string]bool{"http://127.0.0.1:9464/metrics": true, "http://[::1]:1/m": true, "http://localhost:1/": true,
		"http://LOCALHOST/": true, "127.0.0.2:80": true, "http://0.0.0.0:9464/metrics": true,
		"http://web1:9464/metrics": false, "proc": false, "http://10.0.0.1/": false, "[2001:db8::1]:80": false, "http://%zz": false} {
		if Local(target) != want {
			t.Errorf("Local(%q) = %v", target, !want)
		}
	}
}

// Nothing is found, with a reason a user can act on, for a loopback port nobody listens on,
// and for a target that is not on this machine (no name is looked up).
func TestFindListenersNone(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	port := freePort(t)
	ls, err := FindListeners("", "http://127.0.0.1:"+port+"/")
	if err == nil || err.Error() != "nothing listens on 127.0.0.1:"+port {
		t.Errorf("a port nobody listens on: %+v, %v", ls, err)
	}
	for _, target := range []string{"http://10.1.2.3:8080/", "http://example.com/", "http://192.168.0.1", "[2001:db8::1]:80"} {
		if ls, err := FindListeners("", target); !errors.Is(err, ErrNotLocal) || ls != nil {
			t.Errorf("%s: %+v, %v; want ErrNotLocal", target, ls, err)
		}
	}
	for _, target := range []string{"ftp://127.0.0.1/", "127.0.0.1", "http://127.0.0.1:99999/", "http://%zz"} {
		if _, err := FindListeners("", target); err == nil || errors.Is(err, ErrNotLocal) {
			t.Errorf("%s: %v; want an error naming the target", target, err)
		}
	}
}

// A fake /proc, as a little-endian machine writes it: the address decoding of both tables
// (32-bit words in the machine's byte order, an IPv4-mapped IPv6 socket, the unspecified
// addresses that take every connection), a socket two processes share, and a listening socket
// whose holder's descriptors cannot be read — another user's process, which the kernel hides
// from us — said so rather than "nothing listens".
func TestFindListenersFakeProc(t *testing.T) {
	root := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, name), []byte(body), 0o644))
	}
	head := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	write("net/tcp", head+
		"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1\n"+ // 127.0.0.1:8080
		"   1: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 222 1\n"+ // 0.0.0.0:8081
		"   2: 0100007F:1F92 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 333 1\n"+ // established, not listening
		"   3: 0100007F:1F93 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 444 1\n") // held by nobody readable
	write("net/tcp6", head+
		"   0: 0000000000000000FFFF00000100007F:1F94 00000000000000000000000000000000:0000 0A "+ // ::ffff:127.0.0.1:8084
		"00000000:00000000 00:00000000 00000000  1000 0 555 1\n"+
		"   1: 00000000000000000000000001000000:1F95 00000000000000000000000000000000:0000 0A "+ // ::1:8085
		"00000000:00000000 00:00000000 00000000  1000 0 666 1\n")
	proc := func(pid int, name string, inodes ...string) {
		write(strconv.Itoa(pid)+"/stat", strconv.Itoa(pid)+" ("+name+") S 1 1 1 0 -1 4194304 0 0 0 0 5 5 0 0 20 0 1 0 1 0 0\n")
		for i, ino := range inodes {
			must(t, os.Symlink("socket:["+ino+"]", filepath.Join(root, strconv.Itoa(pid), "fd", strconv.Itoa(3+i))))
		}
	}
	must(t, os.MkdirAll(filepath.Join(root, "10/fd"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "11/fd"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "12/fd"), 0o755))
	proc(10, "web", "111", "222")
	proc(11, "worker", "111", "333")
	proc(12, "v6", "555", "666")
	write("13/stat", "13 (other) S 1 1 1 0 -1 4194304 0 0 0 0 5 5 0 0 20 0 1 0 1 0 0\n")
	write("13/fd", "") // not a directory: its descriptors cannot be listed, as another user's

	for target, want := range map[string]string{
		"http://127.0.0.1:8080": "web 10, worker 11", // one socket shared by two processes
		"http://127.0.0.9:8081": "web 10",            // 0.0.0.0 takes all of 127/8
		"http://[::1]:8081":     "",                  // but not IPv6
		"http://127.0.0.1:8082": "",                  // only connected there
		"http://127.0.0.1:8084": "v6 12",             // an IPv4-mapped IPv6 socket
		"http://[::1]:8085":     "v6 12",
		"http://localhost:8085": "v6 12",
	} {
		ls, err := FindListeners(root, target)
		var got []string
		for _, l := range ls {
			got = append(got, l.Name+" "+strconv.Itoa(l.PID))
		}
		if strings.Join(got, ", ") != want || (want == "") != (err != nil) {
			t.Errorf("%s: found %v (%v), want %q", target, got, err, want)
		}
	}
	_, err := FindListeners(root, "http://127.0.0.1:8083")
	if err == nil || !strings.Contains(err.Error(), "not readable") || !strings.Contains(err.Error(), "127.0.0.1:8083") {
		t.Errorf("a socket held by an unreadable process: %v", err)
	}
	if _, err := FindListeners(t.TempDir(), "http://127.0.0.1:8080"); err == nil || !strings.Contains(err.Error(), "net/tcp is not readable") {
		t.Errorf("no /proc/net/tcp: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A test bed in real processes: a database, a services host holding a connection to it, a web
// tier (the target, with a broker on a second port) holding one to the services host, an order
// processor holding one to the services host (a client of it, as the order processors consume
// from its broker), another connected to the web tier's broker port, and a neighbour driving the
// web tier too. From the driver (this test process) holding a connection to the web tier: the
// web tier serves the driver's connection; the services host and the database are followed as
// backends, two and three hops away; the order processors as clients of the services host and
// of the found server's broker port; the neighbour — a client of the front on the port the
// driver drives, as the driver is — is not.
// Mutants (scripts/mutants.d): sut-backends-clients-followed, sut-follow-one-hop (the database
// behind the services host was other), sut-follow-no-clients (the order processor was),
// sut-follow-front-clients (the neighbour counted).
func TestFollow(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	db, dbAddr := listenerChild(t, "listen4")
	bsl, bslAddr := listenerChild(t, "listen4", childEnv+"_BACKEND="+dbAddr)
	web, webAddrs := listenerChild(t, "listen4", childEnv+"_BACKEND="+bslAddr, childEnv+"_SECOND=1")
	webAddr, brokerAddr, _ := strings.Cut(webAddrs, " ")
	orders, _ := listenerChild(t, "listen4", childEnv+"_BACKEND="+bslAddr)
	consumer, _ := listenerChild(t, "listen4", childEnv+"_BACKEND="+brokerAddr)
	neighbour, _ := listenerChild(t, "listen4", childEnv+"_BACKEND="+webAddr)
	if dbAddr == "" || bslAddr == "" || webAddr == "" {
		t.Fatal("the children could not listen on 127.0.0.1")
	}
	c, err := net.Dial("tcp", webAddr) // the driver's connection
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	self := os.Getpid()
	want := []Listener{
		{PID: db, Addr: dbAddr, From: bsl, Role: RoleBackend},
		{PID: bsl, Addr: bslAddr, From: web, Role: RoleBackend},
		{PID: web, Addr: webAddr, From: self, Role: RoleServer},
		{PID: orders, Addr: bslAddr, From: bsl, Role: RoleClient},
		{PID: consumer, Addr: brokerAddr, From: web, Role: RoleClient},
	}
	slices.SortFunc(want, func(a, b Listener) int { return a.PID - b.PID })
	var got []Listener
	for range 100 { // the connections are made as the children start: wait for them all to show
		got = Follow("", self, nil)
		for i := range got {
			got[i].Name = ""
		}
		if slices.Equal(got, want) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("followed from the driver (pid %d): %+v\nwant %+v (the neighbour, pid %d, not)", self, got, want, neighbour)
	}
	// from the web tier named as a root: the same, but the web tier is not returned, and the
	// services host is found from it directly
	got = Follow("", self, []int{web})
	if slices.ContainsFunc(got, func(l Listener) bool { return l.PID == web || l.PID == neighbour }) || len(got) != 4 {
		t.Errorf("followed from the web tier named: %+v", got)
	}
	lines := FoundLines(Follow("", self, nil))
	if len(lines) != 5 || !slices.ContainsFunc(lines, func(l string) bool {
		return strings.Contains(l, fmt.Sprintf("(pid %d), connected to %s — a client of ", orders, bslAddr)) &&
			strings.Contains(l, fmt.Sprintf("(pid %d), its CPU", bsl))
	}) {
		t.Errorf("lines: %q", lines)
	}
}

// A neighbour poses as the system under test: beside a real server on 127.0.0.1:PORT, it binds
// [::]:PORT with IPV6_V6ONLY (a connection to 127.0.0.1 never reaches it) and names itself
// with an escape sequence. FindListeners lists both (/proc cannot tell V6ONLY); FindServer
// counts only the server that accepted this process's connection, and reports the neighbour
// idle, its name escaped for a terminal; so do the lines said of it.
// Mutant (scripts/mutants.d/sut-server-any-listener): every listener on the port counted —
// the neighbour served the target.
func TestFindServerNotAListener(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp6"); err != nil {
		t.Skip("no IPv6 here")
	}
	srv, addr := listenerChild(t, "listen4")
	if addr == "" {
		t.Fatal("the server could not listen on 127.0.0.1")
	}
	_, port, _ := net.SplitHostPort(addr)
	burner, baddr := listenerChild(t, "v6only", childEnv+"_PORT="+port, childEnv+"_NAME=\x1b]0;pwn\x07x")
	if baddr == "" {
		t.Skipf("no [::]:%s with IPV6_V6ONLY here", port)
	}
	ls, err := FindListeners("", "http://"+addr+"/")
	if err != nil || len(ls) != 2 {
		t.Fatalf("listeners on %s: %+v, %v; want the server and the neighbour", addr, ls, err)
	}
	found, err := FindServer("http://"+addr+"/", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Serving) != 1 || found.Serving[0].PID != srv || len(found.Idle) != 1 || found.Idle[0].PID != burner || len(found.Foreign) != 0 {
		t.Fatalf("found %+v; want the server (pid %d) serving, the neighbour (pid %d) idle", found, srv, burner)
	}
	name := found.Idle[0].Name
	if strings.ContainsAny(name, "\x1b\x07") || !strings.Contains(name, `\x1b]0;pwn`) {
		t.Errorf("the neighbour's name %q, want its escape sequence escaped", name)
	}
	if s := found.Idle[0].String(); strings.ContainsAny(s, "\x1b\x07") {
		t.Errorf("said raw: %q", s)
	}
	if got := Follow("", os.Getpid(), nil); slices.ContainsFunc(got, func(l Listener) bool { return l.PID == burner }) {
		t.Errorf("the neighbour followed: %+v", got)
	}
}

// A server of another user's that accepts the driver's connection is not the driver's system
// unless the user names it: FindServer reports it Foreign, and Serving only when told any user
// will do. Needs root, to start the server as another user.
// Mutant (scripts/mutants.d/sut-server-any-user): the user never checked.
func TestFindServerAnotherUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a server as another user")
	}
	exe := exeForAll(t)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=listen4")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run as nobody here: %v", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line := make([]byte, 64)
	n, _ := out.Read(line)
	addr := strings.TrimSpace(string(line[:n]))
	if strings.HasPrefix(addr, "ERR") || addr == "" {
		t.Fatalf("the server did not listen: %q", addr)
	}
	found, err := FindServer("http://"+addr, false)
	if err != nil || len(found.Serving) != 0 || len(found.Foreign) != 1 || found.Foreign[0].PID != cmd.Process.Pid {
		t.Errorf("another user's server: %+v, %v; want it foreign", found, err)
	}
	found, err = FindServer("http://"+addr, true)
	if err != nil || len(found.Serving) != 1 || found.Serving[0].PID != cmd.Process.Pid {
		t.Errorf("another user's server, named: %+v, %v; want it serving", found, err)
	}
}

// exeForAll is this test binary copied where any user may run it (go test's build directory is
// root's alone).
func exeForAll(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sut-finder")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "sut.test")
	must(t, os.WriteFile(exe, bin, 0o755))
	must(t, os.Chmod(dir, 0o755))
	return exe
}

// A server of another user's (here: this test, root, listening; the finder run as nobody, who
// may not read root's descriptors) is not found, and the finder says why — not "nothing
// listens". Needs root, to start the finder as another user.
func TestFindListenersAnotherUsersProcess(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the finder as another user")
	}
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	exe := exeForAll(t)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=find", childEnv+"_TARGET=http://"+ln.Addr().String()+"/")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("cannot run as nobody here: %v", err)
	}
	want := "0 a socket listens on " + ln.Addr().String() + ", but the process holding it is not readable here"
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("as another user: %q, want it to start %q", out, want)
	}
}
