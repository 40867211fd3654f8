.PHONY: test example bench generate

# Runs every test against real servers it starts itself (see scripts/test.sh).
test:
	bash scripts/test.sh

# The main job: the Codex example on the embedded engine.
example:
	go run ./examples/codex

generate:
	go generate ./...

bench:
	bash scripts/bench.sh
