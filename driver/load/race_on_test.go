//go:build race

package load

// raceEnabled: the race detector slows the client ~10×, too slow to offer 2,000 requests/s.
const raceEnabled = true
