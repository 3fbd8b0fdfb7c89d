#!/usr/bin/env bash
# Runs every check CI runs: gofmt, go vet, staticcheck and the tests with the
# race detector. Set-up first (Debian packages when root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
echo "== go vet"
go vet ./...
echo "== staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
echo "== actionlint"
bash .github/actionlint.sh
echo "== go test -race"
go test -race -count=1 -timeout 20m ./... 2>&1 | tee /tmp/template-verify-test.log
