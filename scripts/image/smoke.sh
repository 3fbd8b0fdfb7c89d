#!/usr/bin/env bash
# Runs the demo in the image that build.sh made and checks the result:
# "demo" exits 0, "demo --bad" exits 1, and both print the report's
# "## Verification" section. Exit code 3 means a check did not run in the
# image (for example no pytest): that is an error in the image.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/image/lib.sh
. "$here/lib.sh"

[ "$(id -u)" = 0 ] || die "run as root, like build.sh."
use_podman_conf
podman image exists "$TV_IMAGE" || die "no image $TV_IMAGE; run scripts/image/build.sh first."

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0

# check NAME WANT ARGS...: runs the image with ARGS, without network.
check() {
  local name=$1 want=$2 rc=0 t0=$SECONDS
  shift 2
  podman run --rm --network=none "$TV_IMAGE" "$@" >"$out/$name.md" 2>"$out/$name.err" || rc=$?
  local secs=$((SECONDS - t0))
  if [ "$rc" != "$want" ]; then
    log "FAIL: '$*' exited $rc, want $want. The checks:"
    sed -n '/^| Check | Result/,/^$/p' "$out/$name.md" | cut -c1-200 | sed 's/^/  /' >&2
    sed 's/^/  stderr: /' "$out/$name.err" >&2
    failed=1
  elif ! grep -q '^## Verification' "$out/$name.md"; then
    log "FAIL: '$*' printed no '## Verification' section."
    failed=1
  else
    log "ok: '$*' exited $rc in ${secs} s"
  fi
  grep -h -i 'sandbox' "$out/$name.md" | head -n 1 | sed 's/^/  note: /' >&2 || true
}

podman run --rm --network=none "$TV_IMAGE" version >&2
check demo 0 demo
check demo-bad 1 demo --bad
if [ "$failed" != 0 ]; then
  mkdir -p "$TV_STATE/smoke"
  cp "$out"/* "$TV_STATE/smoke/"
  die "smoke test failed. The reports are in $TV_STATE/smoke."
fi
log "smoke test passed."
