// Package bench holds tablekit's benchmarks, under the exact names the
// issues give, so anyone can rerun them with
//
//	go test -run '^$' -bench . -benchmem -count 10 ./internal/bench | benchstat -
//
// Benchmarks that need a server read the same variables as the tests
// (see internal/testenv) and skip without them.
package bench
