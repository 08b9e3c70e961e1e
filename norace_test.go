//go:build !race

package jaws

const raceEnabled = false
