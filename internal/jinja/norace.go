//go:build !race

package jinja

// raceEnabled is true in a build with the race detector.
const raceEnabled = false
