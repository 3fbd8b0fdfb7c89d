#!/usr/bin/env bash
# Builds template-verify and verifies the bundled example's pull request.
# Extra arguments go to "template-verify demo" (for example --bad).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p bin
go build -o bin/template-verify ./cmd/template-verify
exec bin/template-verify demo "$@"
