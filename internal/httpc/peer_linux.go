//go:build linux

package httpc

import (
	"crypto/tls"
	"net"
	"syscall"
)

// peerClosed reports whether an idle connection can no longer carry a request: the server has
// closed it (a FIN, or a reset, is waiting) or sent bytes nobody asked for (a TLS close_notify;
// anything else breaks the framing). It peeks without blocking and without consuming: one
// recvfrom(MSG_PEEK|MSG_DONTWAIT) on the socket. A connection it cannot look into counts as open.
func peerClosed(c net.Conn) bool {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var b [1]byte
	rc.Read(func(fd uintptr) bool {
		for {
			_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			switch err {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				// nothing waiting: open
			default:
				closed = true // 0 bytes (EOF), bytes waiting, or an error such as ECONNRESET
			}
			return true // never wait
		}
	})
	return closed
}
