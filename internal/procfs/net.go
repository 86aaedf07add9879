package procfs

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"syscall"
)

// Socket is one line of /proc/net/tcp or tcp6: a TCP socket of this network namespace.
type Socket struct {
	IP, RemoteIP     net.IP // local and remote address
	Port, RemotePort int
	Listening        bool   // TCP_LISTEN
	Established      bool   // TCP_ESTABLISHED
	Inode            uint64 // what a descriptor holding it links to ("socket:[INODE]")
}

// TCP reads the network namespace's TCP sockets, IPv4 and IPv6 (either table may be missing:
// no IPv6 on this machine; an error when both are).
func (fs FS) TCP() ([]Socket, error) {
	var out []Socket
	read := 0
	for _, name := range []string{"net/tcp", "net/tcp6"} {
		fh, err := os.Open(fs.path(name))
		if err != nil {
			continue
		}
		read++
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			if k, ok := parseSocket(sc.Bytes()); ok {
				out = append(out, k)
			}
		}
		fh.Close()
	}
	if read == 0 {
		return nil, fmt.Errorf("%s is not readable: this system's listening sockets are unknown", fs.path("net/tcp"))
	}
	return out, nil
}

// parseSocket reads a line of the TCP table:
// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode.
func parseSocket(line []byte) (Socket, bool) {
	var fields [10][]byte
	fs := fieldsInto(fields[:0], line)
	if len(fs) < 10 {
		return Socket{}, false
	}
	ip, p, ok1 := parseAddr(fs[1])
	rip, rp, ok2 := parseAddr(fs[2])
	inode, err := strconv.ParseUint(string(fs[9]), 10, 64)
	if !ok1 || !ok2 || err != nil {
		return Socket{}, false
	}
	st := string(fs[3])
	return Socket{IP: ip, RemoteIP: rip, Port: p, RemotePort: rp, Listening: st == "0A", Established: st == "01", Inode: inode}, true
}

// parseAddr decodes the TCP table's "0100007F:1F90": the address as the kernel's 32-bit words
// printed in this machine's byte order, the port in hex.
func parseAddr(s []byte) (net.IP, int, bool) {
	a, p, ok := bytes.Cut(s, []byte(":"))
	port, err := strconv.ParseUint(string(p), 16, 16)
	if !ok || err != nil || (len(a) != 8 && len(a) != 32) {
		return nil, 0, false
	}
	ip := make(net.IP, len(a)/2)
	if _, err := hex.Decode(ip, a); err != nil {
		return nil, 0, false
	}
	for i := 0; i < len(ip); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(ip[i:]))
	}
	return ip, int(port), true
}

// Sockets are the inodes of a process's descriptors that are sockets (their links read
// "socket:[INODE]"). The error is the descriptor directory's: os.ErrNotExist for a process
// that ended, a permission error for another user's.
func (fs FS) Sockets(pid int) ([]uint64, error) {
	dir := fs.pidPath(pid, "fd/")
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	fds, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var out []uint64
	var link [64]byte
	for _, fd := range fds {
		n, err := syscall.Readlink(dir+fd, link[:])
		if err != nil || n >= len(link) {
			continue // closed meanwhile, or no socket's link
		}
		if ino, ok := socketInode(link[:n]); ok {
			out = append(out, ino)
		}
	}
	return out, nil
}

// socketInode is the inode of a descriptor's link "socket:[INODE]".
func socketInode(link []byte) (uint64, bool) {
	rest, ok := bytes.CutPrefix(link, []byte("socket:["))
	if !ok || len(rest) < 2 || rest[len(rest)-1] != ']' {
		return 0, false
	}
	ino, err := strconv.ParseUint(string(rest[:len(rest)-1]), 10, 64)
	return ino, err == nil
}

// Holders scans every process's descriptors for the sockets in inodes: the pids holding each
// (a socket forked workers share has several), and how many processes' descriptors could not
// be read (another user's, which only that user or root may read; a process that ended
// meanwhile is no one).
func (fs FS) Holders(inodes map[uint64]bool) (map[uint64][]int, int) {
	pids, err := fs.PIDs()
	if err != nil {
		return nil, 0
	}
	out := map[uint64][]int{}
	unreadable := 0
	for _, pid := range pids {
		links, err := fs.Sockets(pid)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
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
