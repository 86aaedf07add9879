package sut

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/procfs"
	"github.com/tradebench/tradebench/report"
)

// Listener is a process on this machine holding a listening TCP socket: the system under test
// of a drive against a loopback target, found by the target's port.
type Listener struct {
	PID  int
	Name string // its command name, as /proc/PID/stat gives it (e.g. "tradebench")
	Addr string // the address it was found by: the target's host:port (e.g. "127.0.0.1:8080")
	// From is, for a process found by its connections (Follow), the pid it was reached from:
	// the one whose connection to Addr it serves (a backend) or the one serving its connection
	// to Addr (a client); 0 for the process found by the target's port.
	From int
	// Role is how it belongs to the system under test: RoleServer, RoleBackend or RoleClient.
	Role string
}

// Source is the listener as a resource source: a process on this machine read from /proc,
// counted as the measurement's own.
func (l Listener) Source(root string) *Proc {
	return &Proc{ProcName: l.Name, Pid: l.PID, Root: root, Listen: l.Addr, From: l.From, Role: l.Role}
}

// String is the listener as the run's output names it: "tradebench (pid 1234), listening on
// 127.0.0.1:8080 — found by its port", or for a backend "… — serving a connection from pid 1234".
func (l Listener) String() string {
	return report.FoundProcess(l.Name, l.PID, l.Addr, l.From, l.Role)
}

// FoundLines are the processes found, one line for each group of one name, role, address and
// process reached from (report.FoundLines): a drive through a test bed finds a dozen database
// backends, and says them in one line.
func FoundLines(ls []Listener) []string {
	ps := make([]report.MachineProcess, len(ls))
	for i, l := range ls {
		ps[i] = report.MachineProcess{Name: l.Name, PID: l.PID, Listen: l.Addr, From: l.From, Role: l.Role}
	}
	return report.FoundLines(ps, false)
}

// ErrNotLocal is FindListeners' answer for a target that is not on this machine's loopback: its
// server's CPU is not on this machine (or not knowable from it), so it is nobody's to count.
var ErrNotLocal = errors.New("not a loopback address")

// FindListeners finds the processes on this machine listening on the TCP port that target (a
// URL, scheme://host[:port]/…, or host:port) connects to, when its host is a loopback address
// (127.0.0.0/8, ::1, localhost) or the unspecified one (which connects here too). It reads the
// listening sockets of /proc/net/tcp and tcp6 (the reading process's network namespace) and
// every process's /proc/PID/fd links ("socket:[INODE]"); root is the proc file system ("" =
// /proc). Several processes are returned when they share the socket (a server's forked workers)
// or each hold one on the port (SO_REUSEPORT); sorted by pid.
//
// The error says why none was found, in words a user can act on: ErrNotLocal (wrapped) for a
// host elsewhere, no socket listening on the port, or a listening socket no readable process
// holds — another user's process, whose descriptors only that user (or root) may read.
func FindListeners(root, target string) ([]Listener, error) {
	fs := procfs.FS(root)
	host, port, err := hostPort(target)
	if err != nil {
		return nil, err
	}
	ips, err := localIPs(host)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	inodes, err := listeningInodes(fs, port, ips)
	if err != nil {
		return nil, err
	}
	if len(inodes) == 0 {
		return nil, fmt.Errorf("nothing listens on %s", addr)
	}
	held, unreadable := fs.Holders(inodes)
	var out []Listener
	for _, pids := range held {
		for _, pid := range pids {
			if !slices.ContainsFunc(out, func(l Listener) bool { return l.PID == pid }) {
				out = append(out, Listener{PID: pid, Name: procName(fs, pid), Addr: addr})
			}
		}
	}
	if len(out) == 0 {
		if unreadable > 0 {
			return nil, fmt.Errorf("a socket listens on %s, but the process holding it is not readable here "+
				"(%d processes' descriptors are not: another user's)", addr, unreadable)
		}
		return nil, fmt.Errorf("a socket listens on %s, but no process on this machine holds it (another network namespace's, or a container's)", addr)
	}
	slices.SortFunc(out, func(a, b Listener) int { return a.PID - b.PID })
	return out, nil
}

// Server is what FindServer found on a loopback target's port.
type Server struct {
	// Serving hold the listening socket that accepted the driver's own connection to the
	// target (a server's forked workers share it): the system under test's front.
	Serving []Listener
	// Idle listen on the port too, but served none of it — a listener on [::]:PORT with
	// IPV6_V6ONLY, which a connection to 127.0.0.1:PORT never reaches: reported, not counted.
	Idle []Listener
	// Foreign served it but are another user's: not the driver's system unless the user names
	// them (drive --sut-metrics).
	Foreign []Listener
}

// probeTimeout bounds FindServer's connection to the target and its wait for the server to
// accept it.
const probeTimeout = 2 * time.Second

// FindServer finds the system under test of a loopback target by what serves it, not by what
// listens: it opens a connection of this process's to the target's address (as the driver's
// are opened), waits for a process to accept it, and counts that process — and those sharing
// the listening socket it accepted on — if it is of this process's user (anyUser: whoever runs
// it, for a server the user named). Any other process listening on the port is Idle; a
// neighbour cannot pose as the system under test by binding [::]:PORT with IPV6_V6ONLY, or
// [::1]:PORT beside a server on 127.0.0.1, since the driver's connections never reach it. The
// error is FindListeners' when nothing listens (ErrNotLocal for a target elsewhere), or says
// that nothing accepted the connection.
func FindServer(target string, anyUser bool) (Server, error) {
	const fs = procfs.Default // the connection is this process's, in this network namespace
	ls, err := FindListeners(string(fs), target)
	if err != nil {
		return Server{}, err
	}
	host, port, _ := hostPort(target) // FindListeners checked both
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	conn, err := net.DialTimeout("tcp", addr, probeTimeout)
	if err != nil {
		return Server{Idle: ls}, fmt.Errorf("a socket listens on %s, but a connection to it failed: %w", addr, err)
	}
	defer conn.Close()
	local, remote := conn.LocalAddr().(*net.TCPAddr), conn.RemoteAddr().(*net.TCPAddr)
	// the server's end of the connection, and who holds it once accepted
	var holders []int
	for deadline := time.Now().Add(probeTimeout); len(holders) == 0 && time.Now().Before(deadline); {
		socks, err := fs.TCP()
		if err != nil {
			return Server{Idle: ls}, err
		}
		for _, k := range socks {
			theirs := addrKey(k.IP, k.Port) == addrKey(remote.IP, remote.Port) && addrKey(k.RemoteIP, k.RemotePort) == addrKey(local.IP, local.Port)
			if k.Established && theirs {
				held, _ := fs.Holders(map[uint64]bool{k.Inode: true})
				holders = held[k.Inode]
			}
		}
		if len(holders) == 0 {
			time.Sleep(10 * time.Millisecond) // the server has not accepted it yet
		}
	}
	if len(holders) == 0 {
		return Server{Idle: ls}, fmt.Errorf("a socket listens on %s, but no process here accepted a connection to it within %v "+
			"(another user's, whose descriptors are not readable, or a server that does not accept)", addr, probeTimeout)
	}
	// the listening sockets the accepting processes hold: their workers share them
	inodes, err := listeningInodes(fs, port, nil)
	if err != nil {
		return Server{Idle: ls}, err
	}
	accepting := map[uint64]bool{}
	for _, pid := range holders {
		links, _ := fs.Sockets(pid)
		for _, l := range links {
			if inodes[l] {
				accepting[l] = true
			}
		}
	}
	held, _ := fs.Holders(accepting)
	serving := slices.Clone(holders)
	for _, pids := range held {
		serving = append(serving, pids...)
	}
	var out Server
	uid := os.Getuid()
	for _, pid := range holders { // a process handed the connection without the listening socket
		if !slices.ContainsFunc(ls, func(l Listener) bool { return l.PID == pid }) {
			ls = append(ls, Listener{PID: pid, Name: procName(fs, pid), Addr: addr})
		}
	}
	for _, l := range ls {
		switch u := uidOf(fs, l.PID); {
		case !slices.Contains(serving, l.PID):
			out.Idle = append(out.Idle, l)
		case !anyUser && u != uid: // -1, unreadable, is nobody's
			out.Foreign = append(out.Foreign, l)
		default:
			out.Serving = append(out.Serving, l)
		}
	}
	return out, nil
}

// procName is a process's command name from /proc/PID/stat ("" if unreadable).
func procName(fs procfs.FS, pid int) string {
	st, err := fs.Stat(pid)
	if err != nil {
		return ""
	}
	return st.Name
}

// uidOf is a process's real user id, -1 (no user's) when unreadable.
func uidOf(fs procfs.FS, pid int) int {
	st, err := fs.Status(pid)
	if err != nil {
		return -1
	}
	return st.UID
}

// hostPort is target's host and TCP port (a URL's scheme's default port when it names none).
func hostPort(target string) (string, int, error) {
	hp := target
	scheme := ""
	if strings.Contains(target, "://") {
		u, err := url.Parse(target)
		if err != nil || u.Host == "" {
			return "", 0, fmt.Errorf("%q is not a URL with a host", target)
		}
		hp, scheme = u.Host, u.Scheme
	}
	host, port, err := net.SplitHostPort(hp)
	if err != nil {
		// no port: the scheme's
		host, port = strings.Trim(hp, "[]"), map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}[scheme]
		if port == "" {
			return "", 0, fmt.Errorf("%q names no port", target)
		}
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 {
		return "", 0, fmt.Errorf("%q: port %q is not a TCP port", target, port)
	}
	return host, int(p), nil
}

// Local reports whether target (a URL, scheme://host[:port]/…, or host:port) is on this
// machine: its host a loopback address, "localhost" or the unspecified address, which connects
// here too. No name is looked up. It is the one answer to "is this address here" for the
// instrument: FindListeners looks for a server only at such a target, and the machine's watch
// counts a server scraped at one as the measurement's own.
func Local(target string) bool {
	host, _, err := hostPort(target)
	if err != nil {
		return false
	}
	_, err = localIPs(host)
	return err == nil
}

// localIPs are the addresses a connection to host reaches on this machine: nil (any) for the
// unspecified address, both loopbacks for "localhost", the address itself for a loopback one.
// Any other host is ErrNotLocal: no name is looked up.
func localIPs(host string) ([]net.IP, error) {
	if strings.EqualFold(host, "localhost") {
		return []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, nil
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil || !(ip.IsLoopback() || ip.IsUnspecified()):
		return nil, fmt.Errorf("%s: %w", host, ErrNotLocal)
	case ip.IsUnspecified():
		return nil, nil
	}
	return []net.IP{ip}, nil
}

// listeningInodes are the inodes of the TCP sockets listening on port at an address that
// accepts a connection to one of ips (nil: any): the same address, or the unspecified one of
// its family (IPv6's also takes IPv4, as a dual-stack socket does).
func listeningInodes(fs procfs.FS, port int, ips []net.IP) (map[uint64]bool, error) {
	socks, err := fs.TCP()
	if err != nil {
		return nil, err
	}
	out := map[uint64]bool{}
	for _, k := range socks {
		if k.Listening && k.Port == port && accepts(k.IP, ips) {
			out[k.Inode] = true
		}
	}
	return out, nil
}

// accepts reports whether a socket listening at ln takes a connection to one of ips (nil: any).
func accepts(ln net.IP, ips []net.IP) bool {
	if ips == nil {
		return true
	}
	for _, ip := range ips {
		switch {
		case ln.Equal(ip): // Equal matches an IPv4-mapped IPv6 address with its IPv4 one
			return true
		case ln.Equal(net.IPv6unspecified):
			return true
		case ln.Equal(net.IPv4zero) && ip.To4() != nil:
			return true
		}
	}
	return false
}
