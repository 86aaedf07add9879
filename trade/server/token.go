package server

import (
	"errors"
	iofs "io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// monolith reports whether this process runs every role with the order processor inside it:
// every caller of its authenticated endpoints is then in the process.
func (c Config) monolith() bool {
	r := c.roles()
	return r.Web && r.BSL && r.Orders && c.Orders.Processor == ""
}

// resolveServiceToken sets an empty ServiceToken as ResolveTokens describes and returns
// the token file the monolith created for its smart clients ("" if none), for Start to remove
// if it fails (a generated ./tradebench-service-token stays: other tiers may already use it).
// A bad or missing token is a *setting.Error of ServiceTokenFile.
func (c *Config) resolveServiceToken(log *slog.Logger) (wrote string, err error) {
	if !c.ResolveTokens || c.ServiceToken != "" {
		return "", nil
	}
	r, file := c.roles(), c.ServiceTokenFile
	monolith := c.monolith()
	if monolith && file != "" && os.Getenv(svcauth.EnvToken) == "" {
		// the monolith's own calls need no shared token, but a smart client (tradebench client
		// --access rest --bsl ADDR) calling its services host does: the token file gives it
		// one, written (mode 0600) when the file does not exist yet
		if _, err := os.Stat(file); errors.Is(err, iofs.ErrNotExist) {
			if _, err := svcauth.WriteTokenFile(file); err != nil {
				return "", &setting.Error{Field: "ServiceTokenFile", Err: err}
			}
			wrote = file
		}
	}
	token, src, path, err := svcauth.Resolve(file, !monolith && (r.BSL || r.Orders))
	switch {
	case err != nil:
		return wrote, &setting.Error{Field: "ServiceTokenFile", Err: err}
	case src == svcauth.NotConfigured && !monolith:
		return wrote, setting.Errorf("ServiceTokenFile", "this process calls a services host or an order processor in another process "+
			"and needs its service token: give the token's file (the host writes ./%s when it has none) or $%s",
			svcauth.DefaultTokenFile, svcauth.EnvToken)
	case wrote != "":
		log.Info("service token written: give clients of this process's services host --service-token-file "+wrote, "file", wrote)
	case src == svcauth.Generated:
		abs, _ := filepath.Abs(path)
		log.Info("service token generated: give the web tiers and order processors --service-token-file "+abs+
			" (or its content in $"+svcauth.EnvToken+")", "file", abs)
	case src == svcauth.FromFile:
		log.Info("service token read", "file", path)
	}
	c.ServiceToken = token
	return wrote, nil
}

// resolveNATSToken sets an empty Orders.NATSToken as ResolveTokens describes and returns the
// token file it created ("" if none), for Start to remove if it fails. With no token anywhere
// it stays empty: the embedded broker then uses a random token of its own, and a connection to
// Orders.NATS presents none. A bad token is a *setting.Error of NATSTokenFile.
func (c *Config) resolveNATSToken(log *slog.Logger) (wrote string, err error) {
	o := c.Orders
	if !c.ResolveTokens || o.NATSToken != "" {
		return "", nil
	}
	// a fixed embedded port means other processes join the broker: they need the token's file
	share := o.NATS == "" && o.NATSPort > 0 && (o.Mode == orders.AsyncDurable || o.Mode == orders.AsyncVolatile)
	token, path, created, err := natsx.ResolveToken(c.NATSTokenFile, share)
	switch {
	case errors.Is(err, natsx.ErrNoToken):
		return "", nil
	case err != nil:
		return "", &setting.Error{Field: "NATSTokenFile", Err: err}
	case created:
		abs, _ := filepath.Abs(path)
		log.Info("NATS token generated: give the processes that join this broker --nats-token-file "+abs+
			" (or its content in $"+natsx.EnvToken+")", "file", abs)
		wrote = path
	}
	c.Orders.NATSToken = token
	return wrote, nil
}
