#!/usr/bin/env bash
# Prints the path of a Go tool at a fixed version, built once: the binary is
# kept in a cache folder keyed by the module version and the Go version, so
# scripts/test.sh (staticcheck) and .github/actionlint.sh do not link it
# again on every run. TEMPLATE_VERIFY_TOOLS_DIR chooses the folder; by
# default it is beside Go's module cache.
#
#   scripts/tool.sh honnef.co/go/tools/cmd/staticcheck@v0.8.2
set -euo pipefail
pkg=${1:?usage: tool.sh PACKAGE@VERSION}
case $pkg in
  *@*) ;;
  *) echo "tool.sh: $pkg has no @version" >&2; exit 2 ;;
esac
name=$(basename "${pkg%@*}")
version=${pkg#*@}
root=${TEMPLATE_VERIFY_TOOLS_DIR:-$(go env GOMODCACHE)/cache/template-verify-tools}
dir="$root/$name-$version-$(go env GOVERSION)-$(go env GOOS)-$(go env GOARCH)"
if [ ! -x "$dir/$name" ]; then
  mkdir -p "$root"
  tmp=$(mktemp -d "$root/.build-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  GOBIN=$tmp GOFLAGS= go install "$pkg" >&2
  # Two runs at once: the first rename wins, the other keeps what is there.
  mkdir -p "$dir"
  mv -f "$tmp/$name" "$dir/$name.$$"
  mv -f "$dir/$name.$$" "$dir/$name"
fi
echo "$dir/$name"
