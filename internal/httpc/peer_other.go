//go:build !linux

package httpc

import "net"

// peerClosed cannot look into the socket here: the connection counts as open (and a request that
// must not be replayed, sent on a connection the server closed, fails rather than being resent).
func peerClosed(net.Conn) bool { return false }
