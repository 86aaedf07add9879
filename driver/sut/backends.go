package sut

import (
	"net"
	"os"
	"slices"
	"strconv"

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
	if root == "" {
		root = "/proc"
	}
	socks, err := readSockets(root)
	if err != nil {
		return nil
	}
	// the sockets by (local, remote) address, and the listening addresses
	type ends struct{ local, remote string }
	byEnds := map[ends]socket{}
	listens := map[string]bool{}
	for _, k := range socks {
		switch {
		case k.open:
			byEnds[ends{addrKey(k.ip, k.port), addrKey(k.rip, k.rport)}] = k
		case k.listening:
			listens[addrKey(k.ip, k.port)] = true
		}
	}
	// listened reports whether ip:port is a listening address here (a connection to it went
	// to a server here; a socket at it is a server's end)
	listened := func(ip net.IP, port int) bool {
		if listens[addrKey(ip, port)] || listens[addrKey(net.IPv6unspecified, port)] {
			return true
		}
		return ip.To4() != nil && listens[addrKey(net.IPv4zero, port)]
	}
	uid := os.Getuid()
	serves := slices.Contains(roots, self)
	seen := map[int]bool{self: true}
	front := map[int]bool{}  // the processes serving the driver's own connections
	driven := map[int]bool{} // the ports the driver's own connections went to
	frontier := []int{self}
	for _, pid := range roots {
		if !seen[pid] {
			seen[pid] = true
			frontier = append(frontier, pid)
		}
	}
	var out []Listener
	for hop := 0; hop < MaxHops && len(frontier) > 0; hop++ {
		// the peer sockets of the frontier's loopback connections: where each went, from whom, how
		type dest struct {
			addr   string
			from   int
			role   string
			driver bool // the driver's own connection: its server is the front
			port   int  // the server's port
		}
		peers := map[string]dest{}
		for _, pid := range frontier {
			links, err := socketLinks(root, pid)
			if err != nil {
				continue
			}
			mine := make(map[string]bool, len(links)) // a server may hold thousands
			for _, l := range links {
				mine[l] = true
			}
			driver := pid == self
			for _, k := range socks {
				if !k.open || !mine[k.inode] || !k.rip.IsLoopback() {
					continue
				}
				peer, ok := byEnds[ends{addrKey(k.rip, k.rport), addrKey(k.ip, k.port)}]
				if !ok {
					continue
				}
				if driver && !listened(k.ip, k.port) {
					driven[k.rport] = true
				}
				switch {
				case listened(k.ip, k.port): // the server's end: the peer is a client
					peers[peer.inode] = dest{net.JoinHostPort(k.ip.String(), strconv.Itoa(k.port)), pid, RoleClient, false, k.port}
				case listened(k.rip, k.rport): // the client's end: the peer serves it
					role := RoleBackend
					if driver && !serves {
						role = RoleServer
					}
					peers[peer.inode] = dest{net.JoinHostPort(k.rip.String(), strconv.Itoa(k.rport)), pid, role, driver, k.rport}
				}
			}
		}
		if len(peers) == 0 {
			break
		}
		want := map[string]bool{}
		for inode := range peers {
			want[inode] = true
		}
		held, _ := holding(root, want)
		frontier = frontier[:0]
		// in inode order, so that a process reached twice is found the same way each time
		inodes := make([]string, 0, len(held))
		for inode := range held {
			inodes = append(inodes, inode)
		}
		slices.Sort(inodes)
		for _, inode := range inodes {
			if peers[inode].driver {
				for _, pid := range held[inode] {
					front[pid] = true
				}
			}
		}
		for _, inode := range inodes {
			d := peers[inode]
			if d.role == RoleClient && front[d.from] && driven[d.port] {
				continue
			}
			for _, pid := range held[inode] {
				if seen[pid] {
					continue
				}
				if d.role != RoleBackend {
					if u, ok := UID(root, pid); !ok || u != uid {
						continue // another user's: not the driver's system; reached another way, maybe
					}
				}
				seen[pid] = true
				out = append(out, Listener{PID: pid, Name: procName(root, pid), Addr: d.addr, From: d.from, Role: d.role})
				frontier = append(frontier, pid)
			}
		}
	}
	slices.SortFunc(out, func(a, b Listener) int { return a.PID - b.PID })
	return out
}

// addrKey is an address and port as a map key, an IPv4-mapped IPv6 address as its IPv4 one.
func addrKey(ip net.IP, port int) string {
	if v4 := ip.To4(); v4 != nil {
		ip = v4
	}
	return string(ip) + ":" + strconv.Itoa(port)
}
