#!/usr/bin/env bash
# Runs the benchmarks of internal/bench with the real servers started by
# scripts/test.sh, and summarizes them with benchstat when it is installed
# (go install golang.org/x/perf/cmd/benchstat@latest). -count repeats each
# benchmark in a row; for a goal that is a ratio of two benchmarks use
# go run ./internal/cmd/benchratio, which interleaves them.
#
#   bash scripts/bench.sh [-bench regexp] [-count N]
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${BENCH:-.}
COUNT=${COUNT:-6}
while [ $# -gt 0 ]; do
  case "$1" in
    -bench) BENCH=$2; shift 2 ;;
    -count) COUNT=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
out=$(mktemp /tmp/tablekit-bench.XXXXXX)
TABLEKIT_RACE_FLAG= TABLEKIT_TEST_PKGS=./internal/bench bash scripts/test.sh -run '^$' -bench "$BENCH" -benchmem -count "$COUNT" | tee "$out"
if command -v benchstat >/dev/null; then benchstat "$out"; fi
echo "raw results: $out"
