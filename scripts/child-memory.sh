#!/usr/bin/env bash
# Peak memory of one verification of the demo example's good head: run in
# one process (as serve did before verify-child), and through
# child.Runner (as serve does now): serve's side and the child, each its
# own peak resident set in KiB. One run, on this machine.
#
#   scripts/child-memory.sh [HEAD]
set -euo pipefail
head=${1:-good}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/tv" ./cmd/template-verify
go build -o "$tmp/childmem" ./scripts/childmem
"$tmp/tv" demo --keep "$tmp/ex" --head "$head" --only render >/dev/null || true
echo "in one process (template-verify run):"
/usr/bin/time -f "  peak RSS KiB %M" "$tmp/tv" run --repo "$tmp/ex" --base main --head "$head" --format json >/dev/null || true
echo "through verify-child:"
"$tmp/childmem" "$tmp/tv" "$tmp/ex" main "$head" | sed 's/^/  /'
