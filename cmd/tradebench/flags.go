package main

import (
	"flag"

	"github.com/tradebench/tradebench/internal/cliflag"
)

// metricsListenFlag registers --metrics-listen, the Prometheus endpoint of every server command;
// the address is checked as it is given (a usage error names the flag).
func metricsListenFlag(fs *flag.FlagSet) *string {
	addr := new(string)
	cliflag.HostPortVar(fs, addr, "metrics-listen", "serve Prometheus metrics at http://ADDR/metrics on a listener of their own (e.g. 127.0.0.1:9464; bind it where only your monitoring can reach it); empty: no endpoint")
	return addr
}
