//go:build race

package participation_test

// raceEnabled: the race detector slows DynamoDB-bound load tests about
// fourfold.
const raceEnabled = true
