#!/usr/bin/env bash
# Lints the workflow files (.github/workflows, examples/workflows) and
# action.yml with actionlint. scripts/test.sh runs it, so CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# Built once per version and Go version, then kept (scripts/tool.sh).
bin=$(bash scripts/tool.sh github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)
actionlint() { "$bin" "$@"; }

actionlint .github/workflows/*.yml examples/workflows/*.yml

# actionlint reads an action's metadata where a workflow uses it as a local
# action: lint a workflow that uses action.yml with every input, in a
# scratch project (a folder with .git and .github/workflows).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/.git" "$tmp/.github/workflows" "$tmp/template-verify"
cp "$root/action.yml" "$tmp/template-verify/action.yml"
inputs=$(sed -n '/^inputs:/,/^[a-z]/s/^  \([a-z-]*\):$/\1/p' "$root/action.yml")
if [ -z "$inputs" ]; then
  echo "actionlint.sh: no inputs found in action.yml" >&2
  exit 1
fi
{
  echo 'on: pull_request'
  echo 'jobs:'
  echo '  verify:'
  echo '    runs-on: ubuntu-24.04'
  echo '    steps:'
  echo '      - id: tv'
  echo '        uses: ./template-verify'
  echo '        with:'
  for i in $inputs; do echo "          $i: x"; done
  echo '      - run: echo "$CONCLUSION $URL $REPORT"'
  echo '        env:'
  echo '          CONCLUSION: ${{ steps.tv.outputs.conclusion }}'
  echo '          URL: ${{ steps.tv.outputs.comment-url }}'
  echo '          REPORT: ${{ steps.tv.outputs.report-json }}'
} > "$tmp/.github/workflows/uses-action.yml"
(cd "$tmp" && actionlint .github/workflows/uses-action.yml)
echo "actionlint: clean"
