package trade

import (
	"context"
	"net"
)

// clientKey is the context key of the end client's address.
type clientKey struct{}

// WithClient records in ctx the address of the end client a call is made for (its IP; a
// host:port is cut to the host): the web tier sets it from the browser's connection, and the
// remote transports carry it to the services host (svcauth, only with the service token), so
// the login throttle counts wrong passwords per client and not per user id alone — a stranger
// could otherwise lock any named account out.
func WithClient(ctx context.Context, addr string) context.Context {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		addr = h
	}
	if len(addr) > 64 {
		addr = addr[:64]
	}
	return context.WithValue(ctx, clientKey{}, addr)
}

// ClientOf is the end client's address recorded by WithClient ("" = unknown).
func ClientOf(ctx context.Context) string {
	s, _ := ctx.Value(clientKey{}).(string)
	return s
}
