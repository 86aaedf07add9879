//go:build !linux

package netfault

import "net"

func shutdownListeners(*net.TCPAddr) (int, error) { return 0, ErrUnsupported }
