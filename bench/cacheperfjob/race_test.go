//go:build race

package cacheperfjob

// raceEnabled: the race detector's shadow memory multiplies the process's RSS, outside any
// ceiling the cache states.
const raceEnabled = true
