# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are used by the scripts that source this file
# Shared settings for build.sh and smoke.sh: image names, the podman
# configuration, and the Debian mirror of this machine. Sourced, not run.

# TV_IMAGE is the image that build.sh makes and smoke.sh runs.
TV_IMAGE=${TV_IMAGE:-template-verify:dev}
# The base image is made here with debootstrap; the Dockerfile's
# FROM debian:bookworm-slim finds it under this name.
TV_SUITE=bookworm
TV_BASE_IMAGE=localhost/debian:${TV_SUITE}-slim
# Files made by these scripts (containers.conf, the debootstrap tree).
TV_STATE=${TV_STATE:-/var/tmp/template-verify-image}

log() { printf 'image: %s\n' "$*" >&2; }
die() { printf 'image: %s\n' "$*" >&2; exit 1; }

# use_podman_conf writes a containers.conf that podman on this machine needs
# and points CONTAINERS_CONF at it. crun, podman's default runtime, does not
# start containers here ("cgroups in hybrid mode not supported"), so runc is
# used. podman asks for 1048576 open files by default; the hard limit of
# this shell is used instead.
use_podman_conf() {
  local nofile
  nofile=$(ulimit -Hn)
  if [ "$nofile" = unlimited ]; then nofile=1048576; fi
  mkdir -p "$TV_STATE"
  cat >"$TV_STATE/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=32768:32768"]

[engine]
runtime = "runc"
CONF
  export CONTAINERS_CONF="$TV_STATE/containers.conf"
}

# apt_uri SUITE prints the first URI that this machine's apt sources use for
# SUITE (one-line .list files and deb822 .sources files).
apt_uri() {
  local suite=$1 f
  {
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -r "$f" ] || continue
      awk -v s="$suite" '
        $1 == "deb" {
          i = 2
          if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
          if ($(i + 1) == s) { print $i; exit }
        }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -r "$f" ] || continue
      awk -v s="$suite" '
        BEGIN { RS = ""; FS = "\n" }
        {
          uris = ""; suites = ""; deb = 0
          for (j = 1; j <= NF; j++) {
            line = $j
            if (line ~ /^Types:/ && line ~ /[ \t]deb([ \t]|$)/) deb = 1
            if (line ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", line); uris = line }
            if (line ~ /^Suites:/) { sub(/^Suites:[ \t]*/, "", line); suites = line }
          }
          if (!deb) next
          n = split(suites, a, /[ \t]+/)
          for (k = 1; k <= n; k++) if (a[k] == s) { split(uris, u, /[ \t]+/); print u[1]; exit }
        }' "$f"
    done
  } | head -n 1
}
