#!/usr/bin/env bash
# Runs every check CI runs: gofmt, go vet, staticcheck and the tests with the
# race detector. Set-up first (Debian packages when root), with PostgreSQL,
# which only the tests need.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests

step() { echo "== $1 (at ${SECONDS}s)"; }
# Folders this script makes, removed however it ends.
made=()
trap 'rm -rf "${made[@]}"' EXIT

# The tests make and remove many small files (fixture repositories,
# checkouts). Where /dev/shm is a tmpfs with room they go there: on the
# CI machine's ext4 a small file costs 14 times as much to make. Set
# TMPDIR yourself to choose.
if [ -z "${TMPDIR:-}" ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
  [ "$(df --output=avail -B1G /dev/shm 2>/dev/null | tail -1 | tr -d ' ')" -ge 4 ] 2>/dev/null; then
  TMPDIR=$(mktemp -d /dev/shm/template-verify-test-XXXXXX)
  export TMPDIR
  made+=("$TMPDIR")
  echo "== test folders in $TMPDIR"
fi
step gofmt
unformatted=$(git ls-files -z '*.go' | xargs -0 gofmt -l)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
# vet and staticcheck build the packages with -race, as the tests do, so
# the three share one build (staticcheck itself is built without it).
# With -race the build tag race is set: internal/jinja/race.go is checked
# instead of norace.go, one constant either way.
step "go vet"
go vet -race ./...
step "staticcheck"
# Built once per version and Go version, then kept (scripts/tool.sh).
staticcheck=$(bash scripts/tool.sh honnef.co/go/tools/cmd/staticcheck@v0.8.2)
GOFLAGS="${GOFLAGS:+$GOFLAGS }-race" "$staticcheck" ./...
step "actionlint"
bash .github/actionlint.sh
step "go test -race"
# The App's tests run against SQLite and against a real PostgreSQL, which
# scripts/pg.sh starts on a unix socket in a temporary folder and this
# script stops however it ends.
eval "$(bash scripts/pg.sh start)"
trap 'bash scripts/pg.sh stop "$PG_DIR"; rm -rf "${made[@]}"' EXIT
export TEMPLATE_VERIFY_TEST_DATABASE_URL=$PG_URL
# A race report prints when the race happens; the second the race
# detector waits at every process exit only slows the test binaries and the
# children they start again.
export GORACE="${GORACE:-atexit_sleep_ms=0}"
# -timeout is a safety net for a hung test binary, not a speed target: the
# app package takes about 8 min alone and passed 20 min while a second
# test run shared the 2 cores (load 30), so the net is 45 min.
# The packages that take longest are named first: go test starts the
# test binaries in the order of its list, two at a time on 2 cores, so
# the long ones no longer start last and run alone at the end.
go test -race -count=1 -timeout 45m ./checks/restore/ ./app/ ./cmd/template-verify/ ./examples/benchgen/ ./checks/pytest/ ./examples/ ./... 2>&1 | tee /tmp/template-verify-test.log
echo "== done in ${SECONDS}s"
