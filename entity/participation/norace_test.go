//go:build !race

package participation_test

const raceEnabled = false
