//go:build !race

package vuser

const raceEnabled = false
