# natsx.Broker.Close closes the connection but leaves the embedded server running
# kill: ./internal/natsx TestDialStartsOrConnects
# file: internal/natsx/broker.go
# expect: still takes connections after Close
/^func (b \*Broker) Close() {$/,/^}$/s/\t\tb.Embedded.Shutdown()/\t\t_ = b.Embedded/
