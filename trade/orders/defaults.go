package orders

// Defaults of order processing (the command line starts from these).
const (
	DefaultConcurrency = 8                 // orders a processor completes at once
	DefaultBatch       = 64                // durable queue messages pulled per fetch
	DefaultWorkDir     = "tradebench-work" // the embedded NATS server stores under WorkDir/nats
	// DefaultHTTPListen and DefaultGRPCListen are where an orders-only process takes orders
	// over REST and gRPC.
	DefaultHTTPListen = "127.0.0.1:8091"
	DefaultGRPCListen = "127.0.0.1:8092"
)

// Bounds Config.Validate enforces.
const (
	MaxConcurrency = 10000
	MaxBatch       = 10000
)
