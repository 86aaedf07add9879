//go:build race

package racetest

// Enabled is true in a build with the race detector.
const Enabled = true
