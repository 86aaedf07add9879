package server

import "github.com/tradebench/tradebench/trade/dataset"

// Defaults of a process started by `tradebench serve` beyond those in DefaultConfig.
const (
	// DefaultBSLListen and DefaultBSLGRPCListen are the services host's fixed, documented
	// addresses when this process has no web role (another process's web tier calls them).
	// With the web role the host takes free loopback ports instead.
	DefaultBSLListen     = "127.0.0.1:8081"
	DefaultBSLGRPCListen = "127.0.0.1:8082"
	// DefaultLoadIfEmptyAccounts and DefaultLoadIfEmptyQuotes size the data set loaded into an
	// empty database on request (serve --load-if-empty): the one default data set, run's.
	DefaultLoadIfEmptyAccounts = dataset.DefaultAccounts
	DefaultLoadIfEmptyQuotes   = dataset.DefaultQuotes
)
