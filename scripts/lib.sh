# Shared by scripts/test.sh and scripts/peers.sh, which source it after
# setting CACHE (where downloads are cached); not run on its own.

DDB_VERSION=2.9.30
DDB_DIR=$CACHE/amplify-dynamodb-simulator-$DDB_VERSION

log() { printf '== %s\n' "$*" >&2; }

# npm_fetch SPEC DIR DEST puts folder DIR of the npm package SPEC
# (name@version) at DEST, replacing what was there. The package is unpacked
# in a temporary folder beside DEST first, so a failed fetch leaves DEST as
# it was.
npm_fetch() {
  local spec=$1 dir=$2 dest=$3 tmp
  mkdir -p "$(dirname "$dest")"
  tmp=$(mktemp -d "$(dirname "$dest")/dl.XXXXXX")
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null && tar xzf ./*.tgz)
  rm -rf "$dest"
  mv "$tmp/$dir" "$dest"
  rm -rf "$tmp"
}

# ddb_local_fetch puts DynamoDB Local in DDB_DIR unless it is there already.
ddb_local_fetch() {
  [ -f "$DDB_DIR/DynamoDBLocal.jar" ] && return 0
  log "fetching DynamoDB Local (npm amplify-dynamodb-simulator@$DDB_VERSION)"
  npm_fetch "amplify-dynamodb-simulator@$DDB_VERSION" package/emulator "$DDB_DIR"
}
