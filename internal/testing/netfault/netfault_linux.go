package netfault

import (
	"net"
	"os"
	"strconv"
	"syscall"
)

// shutdownListeners shuts down every listening TCP socket of this process bound to a and says
// how many it found. The file descriptors are found in /proc/self/fd and matched by their bound
// address; the descriptors stay open (their owners close them), so no number is reused under
// them.
func shutdownListeners(a *net.TCPAddr) (int, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if listening, _ := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ACCEPTCONN); listening != 1 {
			continue
		}
		sa, err := syscall.Getsockname(fd)
		if err != nil || !bound(sa, a) {
			continue
		}
		if err := syscall.Shutdown(fd, syscall.SHUT_RDWR); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func bound(sa syscall.Sockaddr, a *net.TCPAddr) bool {
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		return sa.Port == a.Port && net.IP(sa.Addr[:]).Equal(a.IP)
	case *syscall.SockaddrInet6:
		return sa.Port == a.Port && net.IP(sa.Addr[:]).Equal(a.IP)
	}
	return false
}
