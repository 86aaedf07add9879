package main

import (
	"flag"
	"net"
	"strconv"

	"github.com/tradebench/tradebench/internal/cliflag"
)

// The command line's small layer over the standard flag package: hidden aliases for renamed
// flags, the one --progress flag, the one terminal test, nested subcommands, and the mapping
// from a component's setting errors to the flags that set them.

// metricsListenFlag registers --metrics-listen, the Prometheus endpoint of every server command;
// the value it returns is the address, checked (a usage error names the flag).
func metricsListenFlag(fs *flag.FlagSet) func() (string, error) {
	addr := fs.String("metrics-listen", "", "serve Prometheus metrics at http://ADDR/metrics on a listener of their own (e.g. 127.0.0.1:9464; bind it where only your monitoring can reach it); empty: no endpoint")
	return func() (string, error) {
		if *addr == "" {
			return "", nil
		}
		_, port, err := net.SplitHostPort(*addr)
		if err == nil {
			_, err = strconv.ParseUint(port, 10, 16)
		}
		if err != nil {
			return "", cliflag.Errorf("--metrics-listen %q: want host:port (e.g. 127.0.0.1:9464, :9464)", *addr)
		}
		return *addr, nil
	}
}
