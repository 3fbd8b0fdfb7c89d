#!/usr/bin/env bash
# Re-cuts internal/ghcontract/rest.json and webhooks.json: the operations
# and webhooks template-verify uses, with the schemas they reference, out
# of GitHub's published OpenAPI descriptions (the npm packages
# @octokit/openapi and @octokit/openapi-webhooks). It installs the packages
# with npm into a temporary folder and records their versions in each
# file's "x-cut" header. Nothing reads npm at test time; run this by hand
# to move to newer descriptions, then run the tests of internal/ghcontract,
# internal/fakegithub and the packages that use the fake.
#
# Usage: bash scripts/ghcontract-cut.sh [REST_VERSION [WEBHOOKS_VERSION]]
# (defaults: the versions the committed cut records)
set -euo pipefail
cd "$(dirname "$0")/.."

rest_version=${1:-23.0.2}
hooks_version=${2:-12.1.0}
command -v npm >/dev/null || { echo "needs npm (apt-get install npm)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm install --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
  "@octokit/openapi@$rest_version" "@octokit/openapi-webhooks@$hooks_version" >/dev/null)
pkg="$tmp/node_modules/@octokit"
version() { node -p "require('$1/package.json').version"; }

go run ./internal/ghcontract/cut \
  -rest "$pkg/openapi/generated/api.github.com.json" -rest-version "$(version "$pkg/openapi")" \
  -webhooks "$pkg/openapi-webhooks/generated/api.github.com.json" -webhooks-version "$(version "$pkg/openapi-webhooks")" \
  -out internal/ghcontract
ls -l internal/ghcontract/rest.json internal/ghcontract/webhooks.json
