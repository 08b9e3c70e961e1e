//go:build race

package e2e

// raceEnabled: under go test -race the example is built with -race too, so
// the server the browser talks to runs under the race detector.
const raceEnabled = true
