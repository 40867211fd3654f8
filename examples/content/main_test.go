package main

import "testing"

// TestRun runs the example end to end (on DynamoDB Local and Valkey
// when the test environment provides them, else embedded and bypassed).
func TestRun(t *testing.T) {
	main()
}
