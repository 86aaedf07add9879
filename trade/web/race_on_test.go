//go:build race

package web

// raceEnabled: under the race detector sync.Pool drops items at random, so pooled objects are
// allocated again and allocation counts say nothing about the code.
const raceEnabled = true
