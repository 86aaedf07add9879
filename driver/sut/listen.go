package sut

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

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
	if root == "" {
		root = "/proc"
	}
	host, port, err := hostPort(target)
	if err != nil {
		return nil, err
	}
	ips, err := localIPs(host)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	inodes, err := listeningInodes(root, port, ips)
	if err != nil {
		return nil, err
	}
	if len(inodes) == 0 {
		return nil, fmt.Errorf("nothing listens on %s", addr)
	}
	held, unreadable := holding(root, inodes)
	var out []Listener
	for _, pids := range held {
		for _, pid := range pids {
			if !slices.ContainsFunc(out, func(l Listener) bool { return l.PID == pid }) {
				out = append(out, Listener{PID: pid, Name: procName(root, pid), Addr: addr})
			}
		}
	}
	if len(out) == 0 {
		if unreadable > 0 {
			return nil, fmt.Errorf("a socket listens on %s, but the process holding it is not readable here (%d processes' descriptors are not: another user's)", addr, unreadable)
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
	const root = "/proc" // the connection is this process's, in this network namespace
	ls, err := FindListeners(root, target)
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
		socks, err := readSockets(root)
		if err != nil {
			return Server{Idle: ls}, err
		}
		for _, k := range socks {
			if k.open && addrKey(k.ip, k.port) == addrKey(remote.IP, remote.Port) && addrKey(k.rip, k.rport) == addrKey(local.IP, local.Port) {
				held, _ := holding(root, map[string]bool{k.inode: true})
				holders = held[k.inode]
			}
		}
		if len(holders) == 0 {
			time.Sleep(10 * time.Millisecond) // the server has not accepted it yet
		}
	}
	if len(holders) == 0 {
		return Server{Idle: ls}, fmt.Errorf("a socket listens on %s, but no process here accepted a connection to it within %v (another user's, whose descriptors are not readable, or a server that does not accept)", addr, probeTimeout)
	}
	// the listening sockets the accepting processes hold: their workers share them
	inodes, err := listeningInodes(root, port, nil)
	if err != nil {
		return Server{Idle: ls}, err
	}
	accepting := map[string]bool{}
	for _, pid := range holders {
		links, _ := socketLinks(root, pid)
		for _, l := range links {
			if inodes[l] {
				accepting[l] = true
			}
		}
	}
	held, _ := holding(root, accepting)
	serving := slices.Clone(holders)
	for _, pids := range held {
		serving = append(serving, pids...)
	}
	var out Server
	uid := os.Getuid()
	for _, pid := range holders { // a process handed the connection without the listening socket
		if !slices.ContainsFunc(ls, func(l Listener) bool { return l.PID == pid }) {
			ls = append(ls, Listener{PID: pid, Name: procName(root, pid), Addr: addr})
		}
	}
	for _, l := range ls {
		switch u, ok := UID(root, l.PID); {
		case !slices.Contains(serving, l.PID):
			out.Idle = append(out.Idle, l)
		case !anyUser && (!ok || u != uid):
			out.Foreign = append(out.Foreign, l)
		default:
			out.Serving = append(out.Serving, l)
		}
	}
	return out, nil
}

// holding scans every process's descriptors for the sockets in inodes ("socket:[INODE]"): the
// pids holding each, and how many processes' descriptors could not be read (another user's).
func holding(root string, inodes map[string]bool) (map[string][]int, int) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, 0
	}
	out := map[string][]int{}
	unreadable := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		links, err := socketLinks(root, pid)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) { // a process that ended meanwhile is no one
				unreadable++
			}
			continue
		}
		for _, l := range links {
			if inodes[l] && !slices.Contains(out[l], pid) {
				out[l] = append(out[l], pid)
			}
		}
	}
	return out, unreadable
}

// socketLinks are a process's descriptors that are sockets, as their links read: "socket:[INODE]".
func socketLinks(root string, pid int) ([]string, error) {
	dir := root + "/" + strconv.Itoa(pid) + "/fd/"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, fd := range fds {
		if l, err := os.Readlink(dir + fd.Name()); err == nil && strings.HasPrefix(l, "socket:[") {
			out = append(out, l)
		}
	}
	return out, nil
}

// procName is a process's command name from /proc/PID/stat ("" if unreadable).
func procName(root string, pid int) string {
	b, err := os.ReadFile(root + "/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	st, err := ParseStat(b)
	if err != nil {
		return ""
	}
	return st.Name
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

// listeningInodes are the "socket:[INODE]" names of the TCP sockets listening on port at an
// address that accepts a connection to one of ips (nil: any): the same address, or the
// unspecified one of its family (IPv6's also takes IPv4, as a dual-stack socket does).
func listeningInodes(root string, port int, ips []net.IP) (map[string]bool, error) {
	socks, err := readSockets(root)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, k := range socks {
		if k.listening && k.port == port && accepts(k.ip, ips) {
			out[k.inode] = true
		}
	}
	return out, nil
}

// socket is one line of /proc/net/tcp or tcp6.
type socket struct {
	ip, rip         net.IP // local and remote address
	port, rport     int
	listening, open bool   // TCP_LISTEN; TCP_ESTABLISHED
	inode           string // "socket:[INODE]", as a descriptor's link names it
}

// readSockets reads this network namespace's TCP sockets, IPv4 and IPv6.
func readSockets(root string) ([]socket, error) {
	var out []socket
	read := 0
	for _, f := range []string{"/net/tcp", "/net/tcp6"} {
		fh, err := os.Open(root + f)
		if err != nil {
			continue // no IPv6 on this machine, say
		}
		read++
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 {
				continue
			}
			ip, p, ok1 := procAddr(fs[1])
			rip, rp, ok2 := procAddr(fs[2])
			if !ok1 || !ok2 {
				continue
			}
			out = append(out, socket{ip: ip, rip: rip, port: p, rport: rp, listening: fs[3] == "0A", open: fs[3] == "01", inode: "socket:[" + fs[9] + "]"})
		}
		fh.Close()
	}
	if read == 0 {
		return nil, fmt.Errorf("%s/net/tcp is not readable: this system's listening sockets are unknown", root)
	}
	return out, nil
}

// procAddr decodes /proc/net/tcp's "0100007F:1F90": the address as the kernel's 32-bit words
// printed in this machine's byte order, the port in hex.
func procAddr(s string) (net.IP, int, bool) {
	a, p, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(p, 16, 16)
	if !ok || err != nil || (len(a) != 8 && len(a) != 32) {
		return nil, 0, false
	}
	raw, err := hex.DecodeString(a)
	if err != nil {
		return nil, 0, false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	return ip, int(port), true
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
