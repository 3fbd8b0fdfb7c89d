#!/usr/bin/env bash
# Installs what template-verify and its tests need on a Debian machine.
# As root it installs the missing Debian packages; otherwise it prints the
# exact command and stops. Go (1.26 or newer) must be on PATH already.
set -euo pipefail

need_pkgs=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
debian_py=/usr/bin/python3

have_cmd git || need_pkgs+=(git)
have_cmd bash || need_pkgs+=(bash)
have_cmd bwrap || need_pkgs+=(bubblewrap)
have_cmd shellcheck || need_pkgs+=(shellcheck)
# The App's tests run against PostgreSQL too (scripts/pg.sh starts it).
[ -x /usr/lib/postgresql/15/bin/postgres ] || need_pkgs+=(postgresql-15)
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
