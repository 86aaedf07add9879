//go:build !linux

package httpc

import "net"

// withRawIO is c itself where raw system calls are not wired up (see rawio_linux.go).
func withRawIO(c net.Conn) net.Conn { return c }
