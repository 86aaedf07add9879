package main

import (
	"flag"

	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/server"
)

// registerOrderFlags binds serve's order processing flags to c (c.Orders, the token file and the
// orders role's endpoints); their checks are orders.Config's, and the NATS token file is read
// (or written) by server.Start (Config.ResolveTokens).
func registerOrderFlags(fs *flag.FlagSet, c *server.Config) {
	o := &c.Orders
	fs.StringVar((*string)(&o.Mode), "orders", string(orders.Sync), "order processing mode:\n"+
		"  sync            the order completes in the buy/sell request\n"+
		"  async-durable   JetStream work queue on disk + transactional outbox: an order\n"+
		"                  committed is never lost, whatever crashes\n"+
		"  async-volatile  core NATS subject, fast, but orders queued or in flight are LOST\n"+
		"                  (left open) if a process or the NATS server crashes\n"+
		"  async-http      the order id is POSTed to the processor's REST endpoint (lost on a crash)\n"+
		"  async-grpc      the order id is sent to the processor's gRPC endpoint (lost on a crash)")
	fs.StringVar(&o.NATS, "nats", "", "NATS server URL (nats://host:port) for the async-durable and async-volatile modes, and in any mode for live quote changes between processes; empty starts an embedded NATS server with JetStream storing under --work-dir/nats")
	fs.IntVar(&o.NATSPort, "nats-port", -1, "port of the embedded NATS server on 127.0.0.1 (-1 = any free port); give it (e.g. 4222) when other processes (serve --role orders) must reach it with --nats")
	fs.StringVar(&c.NATSTokenFile, "nats-token-file", "", "file holding the NATS token, mode 0600 (default: $"+natsx.EnvToken+", else ./"+natsx.DefaultTokenFile+" if present): the embedded server requires it, --nats connections present it; with --nats-port and none, the embedded server writes a new one there")
	fs.StringVar(&o.WorkDir, "work-dir", orders.DefaultWorkDir, "working directory (the embedded NATS server's files)")
	fs.StringVar(&o.Processor, "order-processor", "", "async-http/async-grpc: host:port of the order processor's REST (async-http) or gRPC (async-grpc) endpoint (serve --role orders); empty in the monolith runs one in-process")
	fs.IntVar(&o.Concurrency, "concurrency", orders.DefaultConcurrency, "order processor: orders completed at once (0 = the default)")
	fs.IntVar(&o.Batch, "batch", orders.DefaultBatch, "order processor: durable queue messages pulled per fetch (0 = the default)")
	fs.StringVar(&c.OrderHTTPListen, "order-http", orders.DefaultHTTPListen, "--role orders: address of the processor's REST endpoint (empty = none)")
	fs.StringVar(&c.OrderGRPCListen, "order-grpc", orders.DefaultGRPCListen, "--role orders: address of the processor's gRPC endpoint (empty = none)")
}
