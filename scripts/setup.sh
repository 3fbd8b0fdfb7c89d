#!/usr/bin/env bash
# Installs what template-verify needs on a Debian or Ubuntu machine, and
# with --tests (scripts/test.sh passes it) what its tests need too:
# PostgreSQL, of whatever major version the distribution has. The demo
# and the CLI never need PostgreSQL.
# As root it installs the missing packages; otherwise it prints the exact
# command and stops. Go (1.26 or newer) must be on PATH already.
set -euo pipefail

tests=0
for arg in "$@"; do
  case "$arg" in
  --tests) tests=1 ;;
  *) echo "usage: setup.sh [--tests]" >&2; exit 2 ;;
  esac
done

need_pkgs=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
debian_py=/usr/bin/python3

have_cmd git || need_pkgs+=(git)
have_cmd bash || need_pkgs+=(bash)
have_cmd bwrap || need_pkgs+=(bubblewrap)
have_cmd shellcheck || need_pkgs+=(shellcheck)
# The App's tests run against PostgreSQL too (scripts/pg.sh starts it):
# any major version under /usr/lib/postgresql will do, and the package
# "postgresql" installs the distribution's own (15 on Debian 12, 16 on
# Ubuntu 24.04).
have_pg() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/postgres" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ] && return 0
  done
  return 1
}
if [ "$tests" = 1 ]; then have_pg || need_pkgs+=(postgresql); fi
if [ "${TV_SETUP_BENCH:-0}" = 1 ]; then have_cmd hyperfine || need_pkgs+=(hyperfine); fi
# Python packages come from Debian and are used with Debian's own python3,
# which need not be the python3 first on PATH.
if [ ! -x "$debian_py" ]; then
  need_pkgs+=(python3 python3-jinja2 python3-pytest)
else
  "$debian_py" -c 'import jinja2' 2>/dev/null || need_pkgs+=(python3-jinja2)
  "$debian_py" -c 'import pytest' 2>/dev/null || need_pkgs+=(python3-pytest)
fi

if [ "${#need_pkgs[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing Debian packages: ${need_pkgs[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >&2
  else
    echo "setup: missing Debian packages. Run this, then try again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${need_pkgs[*]}" >&2
    exit 1
  fi
fi

if ! have_cmd go; then
  echo "setup: Go 1.26 or newer is not on PATH (looked for 'go')." >&2
  exit 1
fi
