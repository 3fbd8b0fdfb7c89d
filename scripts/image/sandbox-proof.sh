#!/usr/bin/env bash
# Runs internal/sandbox's attack tests inside the image the way GitHub runs
# a Docker action: podman as root with default options (no --privileged, no
# --cap-add, the default seccomp profile, the default network), and prints
# a table: attack | backend | held or BROKE.
#
#   scripts/image/sandbox-proof.sh [SECCOMP_PROFILE.json]
#
# With a profile file (for example Docker's default, from the module
# github.com/moby/profiles/seccomp), the container also runs once with
# --security-opt seccomp=FILE. Needs root and the image from build.sh.
# The tests run as the image's root, with the backend the tool picks by
# itself (TEMPLATE_VERIFY_SANDBOX unset: auto) and each backend forced.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/image/lib.sh
. "$here/lib.sh"

[ "$(id -u)" = 0 ] || die "run as root, like build.sh."
use_podman_conf
podman image exists "$TV_IMAGE" || die "no image $TV_IMAGE; run scripts/image/build.sh first."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A static test binary: the image has no Go.
(cd "$repo" && CGO_ENABLED=0 go test -c -o "$work/sandbox.test" ./internal/sandbox)
tests='^(TestConfinedCommandAttacks|TestNoProcessOutlivesRun|TestChildGetsOnlyStdFDs|TestToolDeathKillsItsCommands|TestSandboxWritesOnlyNamedFolders|TestDecide)$'

# run NAME [PODMAN OPTIONS...]: runs the tests in the image.
run() {
  local name=$1 rc=0
  shift
  podman run --rm "$@" -v "$work:/proof:ro" --entrypoint /proof/sandbox.test "$TV_IMAGE" \
    -test.v -test.count=1 -test.run "$tests" >"$work/$name.log" 2>&1 || rc=$?
  log "$name: the tests exited $rc"
  grep -h 'the default backend here is' "$work/$name.log" | sed 's/^ */  /' >&2 || true
  grep -h -- '--- SKIP\|not run' "$work/$name.log" | sed 's/^ */  /' | sort -u >&2 || true
  echo "| attack | backend | result |"
  echo "| --- | --- | --- |"
  grep -h 'ATTACK |' "$work/$name.log" | sed 's/.*ATTACK | \(.*\)$/| \1 |/' | sort -u
  if [ "$rc" != 0 ]; then
    grep -h -- '--- FAIL\|Error\|BROKE' "$work/$name.log" | head -n 40 >&2 || true
  fi
  return "$rc"
}

failed=0
log "podman run as root, default options"
run default || failed=1
if [ "${1:-}" != "" ]; then
  log "podman run as root, --security-opt seccomp=$1"
  run profile --security-opt "seccomp=$1" || failed=1
fi
[ "$failed" = 0 ] || die "an attack worked or a test failed; see above."
log "every attack held."
