#!/usr/bin/env bash
# The one test command (README): sets up and starts every real server the
# tests need, runs the format and vet checks and every test with the race
# detector, and stops what it started even when a test fails.
#
#   bash scripts/test.sh [extra go test args...]
#
# Environment it honours:
#   TABLEKIT_CACHE      where DynamoDB Local is cached (default ~/.cache/tablekit)
#   TABLEKIT_TEST_PKGS  packages to test (default ./...)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE=${TABLEKIT_CACHE:-$HOME/.cache/tablekit}
. scripts/lib.sh
RUN=$(mktemp -d /tmp/tablekit-run.XXXXXX)
PIDS=()

cleanup() {
  local rc=$?
  for pid in "${PIDS[@]:-}"; do
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]:-}"; do
    [ -n "$pid" ] && wait "$pid" 2>/dev/null || true
  done
  rm -rf "$RUN"
  exit $rc
}
trap cleanup EXIT INT TERM

# --- tools -----------------------------------------------------------------
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  log "installing redis-server through apt"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null
fi
if ! command -v rsvg-convert >/dev/null; then # renders design.svg in internal/designs' tests
  log "installing librsvg2-bin (rsvg-convert) through apt"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq librsvg2-bin >/dev/null
fi
if ! command -v java >/dev/null; then
  echo "java is required for DynamoDB Local (Java 17+); install a JRE" >&2
  exit 1
fi
java -version >/dev/null 2>&1 || { echo "java does not run" >&2; exit 1; }

ddb_local_fetch

# goaws v0.5.4, the SQS-compatible server of consumer/sqsqueue's tests and of
# the flows on SQS; `go install` names its binary cmd.
GOAWS=$(go env GOPATH)/bin/cmd
if [ ! -x "$GOAWS" ] || ! "$GOAWS" -h 2>&1 | grep -q -- -config; then
  log "installing goaws v0.5.4"
  go install github.com/Admiral-Piett/goaws/app/cmd@v0.5.4
fi

# --- ports -----------------------------------------------------------------
used_ports=" "
# pick_port sets PORT to a loopback port that is free now, whose cluster bus
# port (PORT+10000) is free too, and that this script has not handed out.
pick_port() {
  local p
  while :; do
    p=$(( (RANDOM % 20000) + 30000 ))
    case "$used_ports" in *" $p "*|*" $((p+10000)) "*) continue ;; esac
    if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && ! (exec 3<>/dev/tcp/127.0.0.1/$((p+10000))) 2>/dev/null; then
      used_ports="$used_ports$p $((p+10000)) "
      PORT=$p; return
    fi
  done
}

wait_redis() { # port pid
  local port=$1 pid=$2 i
  for i in $(seq 1 200); do
    if [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ]; then return 0; fi
    kill -0 "$pid" 2>/dev/null || return 1 # exited: port taken or bad config
    sleep 0.05
  done
  return 1
}

# start_redis extra-args...: starts a redis-server on a free port, retrying
# on another port if it does not come up, and sets PORT.
start_redis() {
  local attempt pid
  for attempt in 1 2 3 4 5; do
    pick_port
    mkdir -p "$RUN/redis-$PORT"
    redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no \
      --dir "$RUN/redis-$PORT" --logfile "$RUN/redis-$PORT/log" "$@" &
    pid=$!
    if wait_redis "$PORT" "$pid"; then PIDS+=("$pid"); return 0; fi
    kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    echo "redis on port $PORT did not start (attempt $attempt):" >&2
    tail -3 "$RUN/redis-$PORT/log" >&2 || true
  done
  return 1
}

# --- Redis standalone ------------------------------------------------------
start_redis
REDIS_PORT=$PORT

# --- Redis cluster (3 masters) ---------------------------------------------
CPORTS=()
for _ in 1 2 3; do
  start_redis --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000
  CPORTS+=("$PORT")
done

# wait_http url pid tries: waits until url answers HTTP while pid is alive
# (a process that died could not bind its port, which may now be another's).
wait_http() {
  local i
  for i in $(seq 1 "$3"); do
    kill -0 "$2" 2>/dev/null || return 1
    if curl -s -o /dev/null -m 2 "$1" 2>/dev/null; then kill -0 "$2" 2>/dev/null && return 0; fi
    sleep 0.1
  done
  return 1
}

# start_http name log tries cmd...: starts cmd (which listens on $PORT)
# in the background until it answers HTTP on it, on a new free port each
# attempt (another process may take a port between its pick and the
# server's bind); sets PORT.
start_http() {
  local name=$1 logf=$2 tries=$3 attempt pid
  shift 3
  for attempt in 1 2 3 4 5; do
    pick_port
    ("$@" >"$logf" 2>&1) &
    pid=$!
    if wait_http "http://127.0.0.1:$PORT/" "$pid" "$tries"; then PIDS+=("$pid"); return 0; fi
    kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    echo "$name on port $PORT did not start (attempt $attempt):" >&2
    tail -5 "$logf" >&2 || true
  done
  return 1
}

# --- DynamoDB Local --------------------------------------------------------
start_ddb() { cd "$DDB_DIR" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -port "$PORT" -disableTelemetry; }
start_http "DynamoDB Local" "$RUN/ddb.log" 300 start_ddb || { echo "DynamoDB Local did not start" >&2; exit 1; }
DDB_PORT=$PORT

redis-cli --cluster create "127.0.0.1:${CPORTS[0]}" "127.0.0.1:${CPORTS[1]}" "127.0.0.1:${CPORTS[2]}" \
  --cluster-replicas 0 --cluster-yes >"$RUN/cluster.log" 2>&1 || { cat "$RUN/cluster.log" >&2; exit 1; }
cluster_ok=
for i in $(seq 1 200); do
  case "$(redis-cli -p "${CPORTS[0]}" cluster info 2>/dev/null)" in *cluster_state:ok*) cluster_ok=1; break ;; esac
  sleep 0.05
done
[ -n "$cluster_ok" ] || { echo "the Redis cluster did not reach cluster_state:ok" >&2; exit 1; }

# goaws: a config file sets its port (it listens on all interfaces; tests
# send to 127.0.0.1 whatever host its queue URLs name).
start_goaws() {
  cat >"$RUN/goaws.yaml" <<EOF_GOAWS
Local:
  Host: localhost
  Port: $PORT
  Region: us-east-1
  AccountId: "100010001000"
  LogToFile: false
  QueueAttributeDefaults:
    VisibilityTimeout: 30
    ReceiveMessageWaitTimeSeconds: 0
EOF_GOAWS
  cd "$RUN" && exec "$GOAWS" -config "$RUN/goaws.yaml" Local
}
start_http goaws "$RUN/goaws.log" 100 start_goaws || { echo "goaws did not start" >&2; exit 1; }
SQS_PORT=$PORT

export TABLEKIT_DYNAMODB_ENDPOINT="http://127.0.0.1:$DDB_PORT"
export TABLEKIT_SQS_ENDPOINT="http://127.0.0.1:$SQS_PORT"
# The crash-point tests start a goaws of their own from it (testenv.PrivateSQS).
export TABLEKIT_GOAWS_BIN="$GOAWS"
export TABLEKIT_VALKEY_ADDR="127.0.0.1:$REDIS_PORT"
export TABLEKIT_VALKEY_CLUSTER_ADDRS="127.0.0.1:${CPORTS[0]},127.0.0.1:${CPORTS[1]},127.0.0.1:${CPORTS[2]}"
export TABLEKIT_REQUIRE_SERVERS=1
# The lock suite's DynamoDB counter invariant at its full size (64 goroutines x 50 cycles).
export TABLEKIT_LOCK_DYNAMO_COUNTER=${TABLEKIT_LOCK_DYNAMO_COUNTER:-64,50}
log "DynamoDB Local $TABLEKIT_DYNAMODB_ENDPOINT; goaws $TABLEKIT_SQS_ENDPOINT; Redis $TABLEKIT_VALKEY_ADDR; cluster $TABLEKIT_VALKEY_CLUSTER_ADDRS"

# Development aid: TABLEKIT_SERVE_ONLY=envfile keeps the servers running and
# writes their addresses to envfile instead of running the tests.
if [ -n "${TABLEKIT_SERVE_ONLY:-}" ]; then
  printf 'export TABLEKIT_DYNAMODB_ENDPOINT=%s\nexport TABLEKIT_VALKEY_ADDR=%s\nexport TABLEKIT_VALKEY_CLUSTER_ADDRS=%s\nexport TABLEKIT_REQUIRE_SERVERS=1\nexport TABLEKIT_SQS_ENDPOINT=%s\nexport TABLEKIT_GOAWS_BIN=%s\n' \
    "$TABLEKIT_DYNAMODB_ENDPOINT" "$TABLEKIT_VALKEY_ADDR" "$TABLEKIT_VALKEY_CLUSTER_ADDRS" "$TABLEKIT_SQS_ENDPOINT" "$TABLEKIT_GOAWS_BIN" >"$TABLEKIT_SERVE_ONLY"
  log "serving; addresses in $TABLEKIT_SERVE_ONLY"
  wait
fi

# --- checks and tests --------------------------------------------------------
log "gofmt"
unformatted=$(gofmt -l $(find . -name '*.go' -not -path './.cache/*' -not -path './.git/*'))
if [ -n "$unformatted" ]; then echo "gofmt needed:" >&2; echo "$unformatted" >&2; exit 1; fi
log "go vet"
go vet ./...
# No use of a deprecated identifier anywhere in the repository (ours or a
# dependency's); the upgrade guide's deliberate uses say //lint:ignore.
STATICCHECK="$(go env GOPATH)/bin/staticcheck"
if ! "$STATICCHECK" -version 2>/dev/null | grep -q '(0\.8\.2)'; then
  log "installing staticcheck v0.8.2"
  GOBIN="$(go env GOPATH)/bin" go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
log "staticcheck -checks SA1019"
"$STATICCHECK" -checks SA1019 ./...
log "go test ${TABLEKIT_RACE_FLAG--race} ${TABLEKIT_TEST_PKGS:-./...}"
go test ${TABLEKIT_RACE_FLAG--race} -count=1 -timeout 20m ${TABLEKIT_TEST_PKGS:-./...} "$@"
