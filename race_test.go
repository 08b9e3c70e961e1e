//go:build race

package jaws

// raceEnabled: the race detector makes sync.Pool drop items on purpose, and
// ristretto counts accesses through pooled buffers, so its admission
// statistics are not meaningful under -race.
const raceEnabled = true
