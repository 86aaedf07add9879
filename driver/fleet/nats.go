package fleet

// MaxPayload is the largest message the fleet's embedded broker (natsx.ServerConfig.MaxPayload)
// should take: NATS's default (1 MB) bounds an agent's final results too tightly for a
// scenario with many transactions.
const MaxPayload = 8 << 20
