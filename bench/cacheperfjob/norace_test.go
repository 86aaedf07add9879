//go:build !race

package cacheperfjob

const raceEnabled = false
