package main

import (
	"errors"
	"flag"

	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade/orders"
)

// orderFlags are serve's order processing flags.
type orderFlags struct {
	orders.Config
	mode string
	// httpListen and grpcListen are where `serve --role orders` serves its REST and gRPC
	// endpoints (--order-http, --order-grpc).
	httpListen, grpcListen string
	natsTokenFile          string
	generate               bool // the embedded broker needs a token file written (see writeToken)
}

// register adds the flags to fs; config turns them into an orders.Config after fs.Parse.
func (f *orderFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "orders", string(orders.Sync), "order processing mode:\n"+
		"  sync            the order completes in the buy/sell request\n"+
		"  async-durable   JetStream work queue on disk + transactional outbox: an order\n"+
		"                  committed is never lost, whatever crashes\n"+
		"  async-volatile  core NATS subject, fast, but orders queued or in flight are LOST\n"+
		"                  (left open) if a process or the NATS server crashes\n"+
		"  async-http      the order id is POSTed to the processor's REST endpoint (lost on a crash)\n"+
		"  async-grpc      the order id is sent to the processor's gRPC endpoint (lost on a crash)")
	fs.StringVar(&f.NATS, "nats", "", "NATS server URL (nats://host:port) for the async-durable and async-volatile modes, and in any mode for live quote changes between processes; empty starts an embedded NATS server with JetStream storing under --work-dir/nats")
	fs.IntVar(&f.NATSPort, "nats-port", -1, "port of the embedded NATS server on 127.0.0.1 (-1 = any free port); give it (e.g. 4222) when other processes (serve --role orders) must reach it with --nats")
	fs.StringVar(&f.natsTokenFile, "nats-token-file", "", "file holding the NATS token, mode 0600 (default: $"+natsx.EnvToken+", else ./"+natsx.DefaultTokenFile+" if present): the embedded server requires it, --nats connections present it; with --nats-port and none, the embedded server writes a new one there")
	fs.StringVar(&f.WorkDir, "work-dir", orders.DefaultWorkDir, "working directory (the embedded NATS server's files)")
	fs.StringVar(&f.Processor, "order-processor", "", "async-http/async-grpc: host:port of the order processor's REST (async-http) or gRPC (async-grpc) endpoint (serve --role orders); empty in the monolith runs one in-process")
	fs.IntVar(&f.Concurrency, "concurrency", orders.DefaultConcurrency, "order processor: orders completed at once (0 = the default)")
	fs.IntVar(&f.Batch, "batch", orders.DefaultBatch, "order processor: durable queue messages pulled per fetch (0 = the default)")
	fs.StringVar(&f.httpListen, "order-http", orders.DefaultHTTPListen, "--role orders: address of the processor's REST endpoint (empty = none)")
	fs.StringVar(&f.grpcListen, "order-grpc", orders.DefaultGRPCListen, "--role orders: address of the processor's gRPC endpoint (empty = none)")
}

// config checks the flags and returns the orders configuration; a bad value is a
// *setting.Error naming the orders.Config field (serveFlags maps it to the flag).
func (f *orderFlags) config() (orders.Config, error) {
	m, err := orders.ParseMode(f.mode)
	if err != nil {
		return orders.Config{}, &setting.Error{Field: "Mode", Err: err}
	}
	c := f.Config
	c.Mode = m
	// A fixed embedded port means other processes join the broker: they need a token file,
	// written by writeToken once every other check has passed (a refused command leaves nothing).
	f.generate = c.NATS == "" && c.NATSPort > 0 && (m == orders.AsyncDurable || m == orders.AsyncVolatile)
	if tok, _, err := natsx.ResolveToken(f.natsTokenFile, false); err == nil {
		c.NATSToken = tok
	} else if f.natsTokenFile != "" || !errors.Is(err, natsx.ErrNoToken) {
		return orders.Config{}, &setting.Error{Field: "NATSToken", Err: err}
	}
	return c, c.Validate()
}

// writeToken gives c the token file its embedded broker's other processes need, generating one
// when there is none yet, and returns the file it created ("" if none): call it after every
// check, just before starting, and remove the file if the start fails.
func (f *orderFlags) writeToken(c *orders.Config) (string, error) {
	if !f.generate || c.NATSToken != "" {
		return "", nil
	}
	// config found neither $TRADEBENCH_NATS_TOKEN nor a token file: this creates one
	tok, path, err := natsx.ResolveToken(f.natsTokenFile, true)
	if err != nil {
		return "", &setting.Error{Field: "NATSToken", Err: err}
	}
	c.NATSToken = tok
	return path, nil
}
