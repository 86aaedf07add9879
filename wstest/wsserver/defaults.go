package wsserver

// Defaults of `tradebench wstest serve` (the command line starts from these).
const (
	DefaultListen     = ":8080" // SOAP and JSON
	DefaultGRPCListen = ":9090"
)
