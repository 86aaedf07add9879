// Package netfault breaks a live TCP listener from outside the code that owns it, for tests of
// what a server does when its listener dies: it finds this process's listening socket bound to
// an address and shuts it down (shutdown(2)), so the owner's Accept fails as it would after a
// real fault, without the test reaching into the owner's fields.
package netfault

import (
	"errors"
	"fmt"
	"net"
)

// ErrUnsupported is returned on systems where a listener cannot be shut down from outside.
var ErrUnsupported = errors.ErrUnsupported

// KillListener shuts down this process's TCP listening socket bound to addr (host:port, as a
// listener's Addr().String() gives it). Blocked and future Accepts on it fail with a permanent
// error (EINVAL on Linux). It is an error if no such listener exists.
func KillListener(addr string) error {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return err
	}
	n, err := shutdownListeners(ta)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("netfault: no listening socket on %s in this process", addr)
	}
	return nil
}
