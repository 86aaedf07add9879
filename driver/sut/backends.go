package sut

import (
	"maps"
	"net"
	"os"
	"slices"
	"strconv"

	"github.com/tradebench/tradebench/internal/procfs"
	"github.com/tradebench/tradebench/report"
)

// MaxHops bounds how far Follow follows connections from the driver: the web tier, its services
// host, their database, the order processors using the services host and their database's
// processes — a test bed on one machine is five hops deep.
const MaxHops = 6

// How a process found by Follow (or FindServer) belongs to the system under test: Listener.Role.
const (
	// RoleServer holds the server end of one of the driver's own connections: the system
	// under test's front, found by its port (From is the driver's pid, or 0).
	RoleServer = ""
	// RoleBackend serves a connection a process of the system under test opened: its services
	// host, the broker, the database's process for that very connection (PostgreSQL serves
	// each connection in a process of its own, so another client's is not counted).
	RoleBackend = report.RoleBackend
	// RoleClient holds the client end of a connection into a process of the system under
	// test: an order processor consuming from its broker.
	RoleClient = report.RoleClient
)

// Follow is the one rule for which processes on this machine are the system under test's: from
// the driver (self) and the processes already known to be the system under test (roots: the
// ones a run started, named or found by their port; self among them when the server runs in
// the driver's process, as the embedded run's does), the processes at the other end of each
// established loopback TCP connection, followed up to MaxHops:
//   - the driver's own outgoing connections lead to the system under test's front (RoleServer);
//   - a system-under-test process's outgoing connections lead to its backends (RoleBackend) —
//     the services host, the broker, PostgreSQL's backend process for each of its connections,
//     whoever runs them (the database's backends run as its own user);
//   - connections into a system-under-test process lead to its clients (RoleClient), the order
//     processors consuming from its broker — but not those into the front (the process serving
//     the driver's own connections) on the port the driver drives: they are the load (the
//     driver, or a neighbour driving the same server), not the system. Its other ports (its
//     broker's) are followed.
//
// A front or a client must be of the driver's user (unless it is a root): anyone may connect
// to a port or accept on one of their own, only the driver's user could be running its system.
// A backend needs no such check: it holds the server end of a connection the system under
// test opened, which no neighbour can. The PostgreSQL postmaster, which only listens, and other
// clients' backends are never reached. Each process found is returned once, as a Listener at
// the address the connection went to, with From the pid it was reached from; roots and self
// are not returned. What cannot be read (another user's descriptors, when not root) is left
// out.
func Follow(root string, self int, roots []int) []Listener {
	fs := procfs.FS(root)
	socks, err := fs.TCP()
	if err != nil {
		return nil
	}
	f := &follower{fs: fs, conns: newConns(socks), self: self, uid: os.Getuid(), serves: slices.Contains(roots, self),
		seen: map[int]bool{self: true}, front: map[int]bool{}, driven: map[int]bool{}}
	frontier := []int{self}
	for _, pid := range roots {
		if !f.seen[pid] {
			f.seen[pid] = true
			frontier = append(frontier, pid)
		}
	}
	var out []Listener
	for hop := 0; hop < MaxHops && len(frontier) > 0; hop++ {
		peers := f.peers(frontier)
		if len(peers) == 0 {
			break
		}
		var found []Listener
		found, frontier = f.reach(peers)
		out = append(out, found...)
	}
	slices.SortFunc(out, func(a, b Listener) int { return a.PID - b.PID })
	return out
}

// conns is the network namespace's TCP table as Follow looks it up: the established sockets by
// their (local, remote) addresses, and the listening addresses.
type conns struct {
	socks   []procfs.Socket
	byEnds  map[ends]procfs.Socket
	listens map[string]bool
}

type ends struct{ local, remote string }

func newConns(socks []procfs.Socket) conns {
	c := conns{socks: socks, byEnds: map[ends]procfs.Socket{}, listens: map[string]bool{}}
	for _, k := range socks {
		switch {
		case k.Established:
			c.byEnds[ends{addrKey(k.IP, k.Port), addrKey(k.RemoteIP, k.RemotePort)}] = k
		case k.Listening:
			c.listens[addrKey(k.IP, k.Port)] = true
		}
	}
	return c
}

// listened reports whether ip:port is a listening address here (a connection to it went to a
// server here; a socket at it is a server's end).
func (c conns) listened(ip net.IP, port int) bool {
	if c.listens[addrKey(ip, port)] || c.listens[addrKey(net.IPv6unspecified, port)] {
		return true
	}
	return ip.To4() != nil && c.listens[addrKey(net.IPv4zero, port)]
}

// follower is one Follow's state across its hops.
type follower struct {
	fs     procfs.FS
	conns  conns
	self   int
	uid    int
	serves bool         // the server runs in the driver's process (self is a root)
	seen   map[int]bool // the processes reached, and the roots
	front  map[int]bool // the processes serving the driver's own connections
	driven map[int]bool // the ports the driver's own connections went to
}

// dest is where a connection of the frontier went, from whom and how: the peer socket's.
type dest struct {
	addr   string
	from   int
	role   string
	driver bool // the driver's own connection: its server is the front
	port   int  // the server's port
}

// peers are the peer sockets of the frontier's loopback connections, by inode.
func (f *follower) peers(frontier []int) map[uint64]dest {
	peers := map[uint64]dest{}
	for _, pid := range frontier {
		links, err := f.fs.Sockets(pid)
		if err != nil {
			continue
		}
		mine := make(map[uint64]bool, len(links)) // a server may hold thousands
		for _, l := range links {
			mine[l] = true
		}
		driver := pid == f.self
		for _, k := range f.conns.socks {
			if !k.Established || !mine[k.Inode] || !k.RemoteIP.IsLoopback() {
				continue
			}
			peer, ok := f.conns.byEnds[ends{addrKey(k.RemoteIP, k.RemotePort), addrKey(k.IP, k.Port)}]
			if !ok {
				continue
			}
			if driver && !f.conns.listened(k.IP, k.Port) {
				f.driven[k.RemotePort] = true
			}
			switch {
			case f.conns.listened(k.IP, k.Port): // the server's end: the peer is a client
				peers[peer.Inode] = dest{net.JoinHostPort(k.IP.String(), strconv.Itoa(k.Port)), pid, RoleClient, false, k.Port}
			case f.conns.listened(k.RemoteIP, k.RemotePort): // the client's end: the peer serves it
				role := RoleBackend
				if driver && !f.serves {
					role = RoleServer
				}
				peers[peer.Inode] = dest{net.JoinHostPort(k.RemoteIP.String(), strconv.Itoa(k.RemotePort)), pid, role, driver, k.RemotePort}
			}
		}
	}
	return peers
}

// reach finds the processes holding the peers' sockets: those not seen yet, and allowed
// (Follow's rules), are returned, and are the next hop's frontier.
func (f *follower) reach(peers map[uint64]dest) (found []Listener, frontier []int) {
	want := make(map[uint64]bool, len(peers))
	for inode := range peers {
		want[inode] = true
	}
	held, _ := f.fs.Holders(want)
	// in inode order, so that a process reached twice is found the same way each time
	inodes := slices.Sorted(maps.Keys(held))
	for _, inode := range inodes {
		if peers[inode].driver {
			for _, pid := range held[inode] {
				f.front[pid] = true
			}
		}
	}
	for _, inode := range inodes {
		d := peers[inode]
		if d.role == RoleClient && f.front[d.from] && f.driven[d.port] {
			continue
		}
		for _, pid := range held[inode] {
			if f.seen[pid] {
				continue
			}
			if d.role != RoleBackend {
				if uidOf(f.fs, pid) != f.uid {
					continue // another user's: not the driver's system; reached another way, maybe
				}
			}
			f.seen[pid] = true
			found = append(found, Listener{PID: pid, Name: procName(f.fs, pid), Addr: d.addr, From: d.from, Role: d.role})
			frontier = append(frontier, pid)
		}
	}
	return found, frontier
}

// addrKey is an address and port as a map key, an IPv4-mapped IPv6 address as its IPv4 one.
func addrKey(ip net.IP, port int) string {
	if v4 := ip.To4(); v4 != nil {
		ip = v4
	}
	return string(ip) + ":" + strconv.Itoa(port)
}
