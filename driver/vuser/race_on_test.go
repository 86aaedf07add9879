//go:build race

package vuser

// raceEnabled: the race detector multiplies a process's memory (its shadow memory), so a bound on
// peak RSS says nothing about the code under it.
const raceEnabled = true
