#!/usr/bin/env bash
# Runs every check CI runs: gofmt, go vet, staticcheck and the tests with the
# race detector. Set-up first (Debian packages when root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

step() { echo "== $1 (at ${SECONDS}s)"; }
step gofmt
unformatted=$(git ls-files -z '*.go' | xargs -0 gofmt -l)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
step "go vet"
go vet ./...
step "staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
step "actionlint"
bash .github/actionlint.sh
step "go test -race"
# A race report prints when the race happens; the second the race
# detector waits at every process exit only slows the test binaries and the
# children they start again.
export GORACE="${GORACE:-atexit_sleep_ms=0}"
go test -race -count=1 -timeout 20m ./... 2>&1 | tee /tmp/template-verify-test.log
echo "== done in ${SECONDS}s"
