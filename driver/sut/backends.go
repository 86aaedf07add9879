package sut

import (
	"net"
	"slices"
	"strconv"
)

// MaxBackendHops bounds how far FindBackends follows connections: a web tier, its services host,
// their database.
const MaxBackendHops = 3

// FindBackends follows the system under test's own connections on this machine: from the
// processes found (the server on the target's port), the process at the other end of each
// established TCP connection one of them opened to a port listening here — a split deployment's
// services host, the database server process serving that very connection (PostgreSQL serves
// each connection in a process of its own, so another client's is not counted) — and from
// those in turn, up to MaxBackendHops. Each is returned as a Listener at the address the
// connection went to, with From the pid that opened it. Connections into the found processes
// (their clients, this driver among them) are not followed, nor are the pids in skip. What
// cannot be read is left out: this is a best effort beside the one found by its port.
func FindBackends(root string, found []Listener, skip ...int) []Listener {
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
	// listened reports whether a connection to ip:port went to a listening socket here
	listened := func(ip net.IP, port int) bool {
		if listens[addrKey(ip, port)] || listens[addrKey(net.IPv6unspecified, port)] {
			return true
		}
		return ip.To4() != nil && listens[addrKey(net.IPv4zero, port)]
	}
	seen := map[int]bool{}
	for _, pid := range skip {
		seen[pid] = true
	}
	frontier := make([]int, 0, len(found))
	for _, l := range found {
		seen[l.PID] = true
		frontier = append(frontier, l.PID)
	}
	var out []Listener
	for hop := 0; hop < MaxBackendHops && len(frontier) > 0; hop++ {
		// the peer sockets of the frontier's outgoing loopback connections: where each went, from whom
		type dest struct {
			addr string
			from int
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
			for _, k := range socks {
				if !k.open || !mine[k.inode] || !k.rip.IsLoopback() || !listened(k.rip, k.rport) {
					continue
				}
				if peer, ok := byEnds[ends{addrKey(k.rip, k.rport), addrKey(k.ip, k.port)}]; ok {
					peers[peer.inode] = dest{net.JoinHostPort(k.rip.String(), strconv.Itoa(k.rport)), pid}
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
		for inode, pids := range held {
			for _, pid := range pids {
				if seen[pid] {
					continue
				}
				seen[pid] = true
				d := peers[inode]
				out = append(out, Listener{PID: pid, Name: procName(root, pid), Addr: d.addr, From: d.from})
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
