#!/usr/bin/env bash
# The peer suite: dynalite's own mocha tests run against one DynamoDB
# server, with the pass count printed per test file (internal/conformance/
# PEERS.md records the results).
#
#   bash scripts/peers.sh SUITE TARGET [FILE...]
#
# SUITE   a checkout of dynalite's repository (or any folder holding its
#         test/ folder with helpers.js). Only test/ is used from it; it is
#         not changed. The suite is not part of this repository.
# TARGET  dynalite   dynalite itself (the npm package), started on a free port
#         local      DynamoDB Local (fetched like scripts/test.sh does)
#         engine     the engine's HTTP endpoint (go run ./cmd/ddbmem -port N),
#                    tables 500 ms in each of CREATING, UPDATING, DELETING
#         http://... a server that is already running (the other targets
#                    get a fresh server per test file)
# FILE    test file names (query, scan, ...); default: every file but bench
#
# dynalite itself (the server, and the package its tests load) is fetched
# from npm when absent (version DYNALITE_VERSION, default 4.0.0). The tests
# run in dynalite's "remote" mode: they create their five fixed tables on
# the target, and a small require hook sends their requests, signed for
# dynamodb.<region>.amazonaws.com, to the target's address instead.
# Slow tests (large tables) are run too.
#
# Environment: TABLEKIT_CACHE (default ~/.cache/tablekit), PEERS_ENGINE_DIR
# (the checkout the engine target is built from; default this one), PEERS_TIMEOUT
# (mocha per-test timeout, default 30s), PEERS_OUT (folder for the mocha
# JSON reports; default a temporary folder, removed).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
if [ $# -lt 2 ]; then sed -n '2,25p' "$0" >&2; exit 2; fi
SUITE=$(cd "$1" && pwd)
TARGET=$2
shift 2
[ -f "$SUITE/test/helpers.js" ] || { echo "$SUITE/test/helpers.js not found: SUITE must hold dynalite's test/ folder" >&2; exit 2; }

CACHE=${TABLEKIT_CACHE:-$HOME/.cache/tablekit}
. scripts/lib.sh
DYNALITE_VERSION=${DYNALITE_VERSION:-4.0.0}
WORK=$CACHE/peers/dynalite-$DYNALITE_VERSION
RUN=$(mktemp -d /tmp/tablekit-peers.XXXXXX)
OUT=${PEERS_OUT:-$RUN/out}
mkdir -p "$OUT"
SERVER=

cleanup() {
  local rc=$?
  if [ -n "$SERVER" ]; then
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
  fi
  rm -rf "$RUN/work" "$RUN"/*.log
  [ -n "${PEERS_OUT:-}" ] || rm -rf "$RUN"
  exit $rc
}
trap cleanup EXIT INT TERM

# --- dynalite from npm, with the suite's dependencies -----------------------
if [ ! -f "$WORK/.installed" ]; then
  log "fetching dynalite@$DYNALITE_VERSION from npm"
  npm_fetch "dynalite@$DYNALITE_VERSION" package "$WORK"
  # Its dependencies plus what the tests load (mocha, should, aws4); no
  # install scripts run.
  (cd "$WORK" && npm install --silent --no-audit --no-fund --ignore-scripts --omit=dev >/dev/null &&
    npm install --silent --no-audit --no-fund --ignore-scripts --no-save mocha@11 should@13 aws4@1 >/dev/null)
  touch "$WORK/.installed"
fi
# The suite's tests, beside the package (helpers.js loads it as '..').
mkdir -p "$RUN/work"
cp -R "$WORK/." "$RUN/work/"
rm -rf "$RUN/work/test"
cp -R "$SUITE/test" "$RUN/work/test"

# The hook: requests for dynamodb.*.amazonaws.com go to the target.
cat >"$RUN/work/peers-hook.js" <<'EOF'
// Sends the suite's "remote" requests to PEERS_ENDPOINT; the signed Host
// header is kept.
//
// It also keeps one failed assertion from failing other tests: the
// suite's helpers assert inside response callbacks, so a test that sends
// several requests throws once per wrong answer, and the later throws
// would land on whichever test runs then, or end the run ("uncaught
// error outside test suite"). A throw from a response to a test that has
// already ended is dropped (that test is already counted as failed).
const http = require('http')
const target = new URL(process.env.PEERS_ENDPOINT)
let current = null
exports.mochaHooks = {
  beforeEach () { current = this.currentTest },
}
const request = http.request
http.request = function (opts, cb) {
  if (opts && typeof opts === 'object' && /\.amazonaws\.com$/.test(opts.host || opts.hostname || '')) {
    opts = Object.assign({}, opts, { host: target.hostname, hostname: target.hostname, port: target.port || 80 })
  }
  const owner = current
  const ended = () => owner && (owner !== current || owner.state)
  let wrapped = cb
  if (typeof cb === 'function') {
    wrapped = function (res) {
      const on = res.on
      res.on = function (ev, h) {
        if (typeof h === 'function') {
          const orig = h
          h = function () {
            try { return orig.apply(this, arguments) } catch (e) { if (!ended()) throw e }
          }
        }
        return on.call(this, ev, h)
      }
      return cb.call(this, res)
    }
  }
  return request.call(this, opts, wrapped)
}
EOF

# --- the target -------------------------------------------------------------
free_port() {
  local p
  while :; do
    p=$(( (RANDOM % 20000) + 30000 ))
    if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then echo "$p"; return; fi
  done
}

wait_http() { # url pid name log
  local i
  for i in $(seq 1 600); do
    # up, and still ours (not another process that took the port)
    if curl -s -o /dev/null -m 2 "$1" 2>/dev/null; then sleep 0.2; kill -0 "$2" 2>/dev/null && return 0; fi
    kill -0 "$2" 2>/dev/null || { echo "$3 exited:" >&2; tail -20 "$4" >&2; return 1; }
    sleep 0.1
  done
  echo "$3 did not start" >&2; tail -20 "$4" >&2; return 1
}

# start_target starts a fresh server (each test file gets its own: the
# suite's fixed table names would otherwise meet tables still being
# deleted) and sets ENDPOINT and SERVER. A server that does not come up
# (another process took its port first) is retried on another port.
start_target() {
  local attempt
  for attempt in 1 2 3 4 5; do
    if start_target_once; then return 0; fi
    stop_target
  done
  echo "$TARGET did not start" >&2
  return 1
}

start_target_once() {
  SERVER=
  case "$TARGET" in
  dynalite)
    PORT=$(free_port)
    (cd "$WORK" && exec node cli.js --port "$PORT") >"$RUN/server.log" 2>&1 &
    SERVER=$!
    ENDPOINT=http://127.0.0.1:$PORT
    wait_http "$ENDPOINT" "$SERVER" dynalite "$RUN/server.log" || return 1
    ;;
  local)
    PORT=$(free_port)
    (cd "$DDB_DIR" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
      -inMemory -port "$PORT" -disableTelemetry) >"$RUN/server.log" 2>&1 &
    SERVER=$!
    ENDPOINT=http://127.0.0.1:$PORT
    wait_http "$ENDPOINT" "$SERVER" "DynamoDB Local" "$RUN/server.log" || return 1
    ;;
  engine)
    PORT=$(free_port)
    # Tables take time to change, as on DynamoDB and as dynalite's own
    # server does by default (500 ms in each state): ddbmem.Lifecycle.
    # ARNs in the region the suite signs for.
    "$RUN/ddbmem" -port "$PORT" -create-delay 500ms -delete-delay 500ms -update-delay 500ms \
      -region "${AWS_REGION:-us-east-1}" >"$RUN/server.log" 2>&1 &
    SERVER=$!
    ENDPOINT=http://127.0.0.1:$PORT
    wait_http "$ENDPOINT" "$SERVER" "the engine" "$RUN/server.log" || return 1
    ;;
  http://*|https://*)
    ENDPOINT=$TARGET
    ;;
  esac
}

stop_target() {
  if [ -n "$SERVER" ]; then
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
  fi
  SERVER=
}

# Checks and one-time preparation of the target.
case "$TARGET" in
local)
  ddb_local_fetch
  ;;
engine)
  # PEERS_ENGINE_DIR: another checkout of this module to build the engine
  # from (default: this one).
  src=${PEERS_ENGINE_DIR:-$ROOT}
  [ -d "$src/cmd/ddbmem" ] || { echo "$src/cmd/ddbmem does not exist: the engine's HTTP endpoint is pending" >&2; exit 1; }
  (cd "$src" && go build -o "$RUN/ddbmem" ./cmd/ddbmem)
  ;;
dynalite|http://*|https://*) ;;
*) echo "unknown target $TARGET (dynalite, local, engine or a URL)" >&2; exit 2 ;;
esac
log "target $TARGET"

# --- the suite --------------------------------------------------------------
if [ $# -gt 0 ]; then
  FILES=("$@")
else
  FILES=()
  for f in "$RUN"/work/test/*.js; do
    b=$(basename "$f" .js)
    case "$b" in helpers|bench) continue ;; esac
    FILES+=("$b")
  done
fi

export REMOTE=1 SLOW_TESTS=1
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-peers} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-peers}
export AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE
tp=0 tf=0 tn=0
printf '%-22s %6s %6s %6s\n' file passed failed pending
for f in "${FILES[@]}"; do
  start_target
  (cd "$RUN/work" && PEERS_ENDPOINT=$ENDPOINT node_modules/.bin/mocha --require should --require ./peers-hook.js \
    --timeout "${PEERS_TIMEOUT:-30s}" --reporter json --reporter-option output="$OUT/$f.json" \
    "test/$f.js") >"$OUT/$f.log" 2>&1 || true
  stop_target
  if [ ! -s "$OUT/$f.json" ]; then
    echo "$f: mocha wrote no report:" >&2; tail -20 "$OUT/$f.log" >&2
    continue
  fi
  read -r p fl pn < <(node -e 'const r=require(process.argv[1]).stats; console.log(r.passes, r.failures, r.pending)' "$OUT/$f.json")
  printf '%-22s %6d %6d %6d\n' "$f" "$p" "$fl" "$pn"
  tp=$((tp+p)) tf=$((tf+fl)) tn=$((tn+pn))
done
printf '%-22s %6d %6d %6d\n' total "$tp" "$tf" "$tn"
