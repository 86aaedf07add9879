//go:build !linux || race

package httpc

import "net"

// withRawIO is c itself where raw system calls are not wired up, and under the race detector
// (see rawio_linux.go).
func withRawIO(c net.Conn) net.Conn { return c }
