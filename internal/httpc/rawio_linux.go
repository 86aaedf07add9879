//go:build linux && !race

package httpc

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// rawConn reads and writes a plain TCP connection's socket with raw system calls, through the
// connection's syscall.RawConn, instead of through net.Conn's Read and Write. The socket is
// non-blocking and the runtime's poller still does the waiting (and honours the deadlines), so
// nothing changes but the cost: net.Conn's calls go through syscall.Syscall, whose scheduler
// bookkeeping around every read and write (entersyscall/exitsyscall) was 3–4 % of quick mode's
// CPU time. A non-blocking read or write does not block, which is what makes the raw call safe.
// Everything else (deadlines, Close) is the embedded connection's.
//
// Not under the race detector: package syscall's Read and Write tell it that a write happens
// before a later read (through any descriptor), which is how it sees a server's work as done
// before the client reads the reply; raw calls would hide that and make it report races that
// are not there. Race builds use net.Conn (rawio_other.go).
type rawConn struct {
	net.Conn
	rc syscall.RawConn
	// the call in progress, so the callbacks below are made once per connection, not per call
	p               []byte
	n               int
	errno           syscall.Errno
	readFn, writeFn func(fd uintptr) bool
}

// withRawIO returns c with raw reads and writes when it is a TCP connection, else c itself.
func withRawIO(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	r := &rawConn{Conn: c, rc: rc}
	r.readFn, r.writeFn = r.read1, r.write1
	return r
}

// read1 is one read attempt; false asks the poller to wait until the socket is readable.
func (r *rawConn) read1(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(r.p))), uintptr(len(r.p)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		r.n, r.errno = int(n), e
		return true
	}
}

// write1 writes what is left of r.p; false asks the poller to wait until the socket is writable.
func (r *rawConn) write1(fd uintptr) bool {
	for r.n < len(r.p) {
		rest := r.p[r.n:]
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
		switch e {
		case 0:
			r.n += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			r.errno = e
			return true
		}
	}
	return true
}

// SyscallConn is the socket's, so peerClosed can look into it.
func (r *rawConn) SyscallConn() (syscall.RawConn, error) { return r.rc, nil }

func (r *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.errno = p, 0, 0
	err := r.rc.Read(r.readFn)
	n, errno := r.n, r.errno
	r.p = nil
	switch {
	case err != nil: // the deadline passed or the connection was closed
		return 0, renameOp(err, "read")
	case errno != 0:
		return 0, r.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (r *rawConn) Write(p []byte) (int, error) {
	r.p, r.n, r.errno = p, 0, 0
	err := r.rc.Write(r.writeFn)
	n, errno := r.n, r.errno
	r.p = nil
	switch {
	case err != nil:
		return n, renameOp(err, "write")
	case errno != 0:
		return n, r.opError("write", errno)
	}
	return n, nil
}

// renameOp makes the RawConn's "raw-read"/"raw-write" errors read as net.Conn's would, since
// their text is what a run's error examples show.
func renameOp(err error, op string) error {
	if oe, ok := err.(*net.OpError); ok {
		oe.Op = op
	}
	return err
}

// opError is the error net.Conn would return, so errors.Is(err, syscall.ECONNRESET) and the
// error kinds work the same.
func (r *rawConn) opError(op string, errno syscall.Errno) error {
	return &net.OpError{Op: op, Net: "tcp", Source: r.LocalAddr(), Addr: r.RemoteAddr(), Err: os.NewSyscallError(op, errno)}
}
