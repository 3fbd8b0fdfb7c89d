#!/usr/bin/env bash
# Runs .ci/run as GitHub's CI job would, as a non-root user on a fresh
# system that has only what .github/workflows/ci.yml installs: the proof
# that the project's CI can pass where it runs.
#
# It makes a Debian chroot (debootstrap --variant=minbase, the host's own
# suite and mirror, read from its apt sources), installs the packages of
# ci.yml's apt-get line (read from the workflow, so the proof follows it),
# copies this machine's Go in (the stand-in for actions/setup-go), clones
# this repository at REV for a user "runner" (uid 1001, as on GitHub), and
# runs `bash .ci/run` as that user with an empty home: a fresh module
# download and build cache are part of the proof.
#
#   sudo scripts/ci-chroot.sh [--dir DIR] [--rev REV] [--fresh] [--keep-cache]
#
#   --dir DIR      the chroot is DIR/root, the log DIR/ci-run.log
#                  (default /var/tmp/template-verify-chroot)
#   --rev REV      the commit to test (default HEAD); uncommitted changes
#                  are not in the proof
#   --fresh        remove DIR/root and debootstrap again
#   --keep-cache   keep the user's module and build caches from the last run
#
# Exits with .ci/run's status. The chroot stays for the next run (a re-run
# skips debootstrap); the mounts live in a private mount namespace and go
# when the run ends, however it ends.
set -euo pipefail

dir=/var/tmp/template-verify-chroot
rev=HEAD
fresh=0
keep_cache=0
# The job's user on GitHub's runners is "runner", uid 1001.
user=runner
uid=1001

usage() {
  echo "usage: scripts/ci-chroot.sh [--dir DIR] [--rev REV] [--fresh] [--keep-cache]" >&2
  exit 2
}

# inside runs in the private mount and PID namespace that main makes: it
# mounts what the run needs, makes the chroot the root of the mount
# namespace and runs .ci/run as the user.
inside() {
  local root=$CI_CHROOT_ROOT
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  # A /dev/shm of its own, of the size a GitHub runner has (half its 16 GB),
  # so the tests' folders there (scripts/test.sh) are not among the host's.
  mount -t tmpfs -o size=8g,mode=1777 tmpfs "$root/dev/shm"
  # pivot_root, not chroot alone: the kernel refuses a new user namespace
  # (bwrap, the checks' sandbox) to a process whose root is not the root of
  # its mount namespace (clone(2), EPERM "in a chroot environment"). A
  # chroot-only failure: GitHub's job runs at the root of its machine.
  cd "$root"
  mkdir -p .host-root
  pivot_root . .host-root
  # shellcheck disable=SC2016 # expanded by the inner bash
  exec /usr/sbin/chroot . /bin/bash -c '
    set -euo pipefail
    umount -l /.host-root
    rmdir /.host-root
    cd "/home/$0/work/template-verify"
    start=$(date +%s)
    rc=0
    setpriv --reuid="$0" --regid="$0" --init-groups -- env -i "$@" \
      bash -c "cd \"\$HOME/work/template-verify\" && bash .ci/run" || rc=$?
    echo "ci-chroot: .ci/run exited $rc after $(( $(date +%s) - start ))s"
    exit "$rc"
  ' "$CI_CHROOT_USER" "${CI_CHROOT_ENV[@]}"
}

if [ "${1:-}" = --inside ]; then
  # The user's environment comes as a file of NUL-separated VAR=value.
  mapfile -d '' CI_CHROOT_ENV <"$CI_CHROOT_ENVFILE"
  inside
fi

while [ $# -gt 0 ]; do
  case "$1" in
  --dir) [ $# -ge 2 ] || usage; dir=$2; shift 2 ;;
  --rev) [ $# -ge 2 ] || usage; rev=$2; shift 2 ;;
  --fresh) fresh=1; shift ;;
  --keep-cache) keep_cache=1; shift ;;
  *) usage ;;
  esac
done

if [ "$(id -u)" != 0 ]; then
  cat >&2 <<'EOF'
ci-chroot.sh must run as root: it runs debootstrap, mounts /proc, /sys, /dev
and a /dev/shm for the chroot (in a private mount namespace: unshare and
pivot_root, from util-linux), and drops to a non-root user for .ci/run.
It needs a Debian host (its apt sources name the mirror), debootstrap
(apt-get install debootstrap, which it installs itself as root), and Go
on PATH (copied into the chroot). Run it as:
  sudo scripts/ci-chroot.sh [--dir DIR] [--rev REV] [--fresh] [--keep-cache]
EOF
  exit 1
fi

here=$(cd "$(dirname "$0")/.." && pwd)
root="$dir/root"
log="$dir/ci-run.log"
sha=$(git -C "$here" rev-parse --verify "$rev^{commit}")

# The host's suite and its mirror, from its apt sources (deb822 .sources
# files or one-line .list files). The chroot uses the same mirror.
# shellcheck source=/dev/null
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ -z "$suite" ]; then
  echo "ci-chroot: no VERSION_CODENAME in /etc/os-release: not a Debian host?" >&2
  exit 1
fi
# mirror_for SUITE prints the first URI that serves SUITE, or nothing.
mirror_for() {
  local s=$1 f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v s="$s" 'BEGIN { RS = "" } {
      uri = ""; ok = 0; off = 0
      n = split($0, line, "\n")
      for (i = 1; i <= n; i++) {
        m = split(line[i], w, /[ \t]+/)
        if (w[1] == "URIs:") uri = w[2]
        if (w[1] == "Suites:") for (j = 2; j <= m; j++) if (w[j] == s) ok = 1
        if (w[1] == "Enabled:" && w[2] == "no") off = 1
      }
      if (ok && !off && uri != "") { print uri; exit }
    }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -E 's/\[[^]]*\]//' "$f" | awk -v s="$s" '$1 == "deb" && $3 == s { print $2 }'
  done
} 2>/dev/null
mirror=$(mirror_for "$suite" | head -n 1)
security=$(mirror_for "$suite-security" | head -n 1)
if [ -z "$mirror" ]; then
  echo "ci-chroot: no apt source for suite $suite in /etc/apt/sources.list{,.d}" >&2
  exit 1
fi

# The packages of ci.yml's apt-get install line (a line ending in \
# continues), without sudo, apt-get and the options.
mapfile -t pkgs < <(sed -n '/apt-get install/,/[^\\]$/{s/\\$//;p}' "$here/.github/workflows/ci.yml" |
  tr ' ' '\n' | grep -vE '^(sudo|apt-get|install|-.*|)$')
if [ "${#pkgs[@]}" = 0 ]; then
  echo "ci-chroot: no apt-get install line in .github/workflows/ci.yml" >&2
  exit 1
fi
# What GitHub's ubuntu-24.04 image has before any step runs and a minbase
# Debian lacks; each would fail the run here and not there:
#   ca-certificates: the HTTPS of the Go module proxy (go mod download);
#   gcc, libc6-dev: -race needs cgo, which the go command turns off when
#     it finds no C compiler ("-race requires cgo").
image_pkgs=(ca-certificates gcc libc6-dev)

goroot=$(go env GOROOT)
goversion=$(go env GOVERSION)

if [ ! -x /usr/sbin/debootstrap ]; then
  echo "ci-chroot: installing debootstrap" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2
fi

# Mounts are made in a private namespace, but refuse to remove a tree
# with anything mounted below it in this one.
mounted_below() { awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts; }
if [ -n "$(mounted_below "$root")" ]; then
  echo "ci-chroot: something is mounted under $root; unmount it first:" >&2
  mounted_below "$root" >&2
  exit 1
fi

mkdir -p "$dir"
if [ "$fresh" = 1 ] || [ ! -f "$root/.ci-chroot-ready" ]; then
  rm -rf "$root"
  echo "== debootstrap --variant=minbase $suite into $root" >&2
  debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
    "$suite" "$root" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
    { tail -n 20 "$dir/debootstrap.log" >&2; exit 1; }
  touch "$root/.ci-chroot-ready"
fi

# apt sources: the suite, its updates and its security suite, as GitHub's
# image has for Ubuntu. Written from the host's sources at every run.
rm -f "$root/etc/apt/sources.list"
{
  printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" "$suite" "$suite"
  if [ -n "$security" ]; then
    printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$security" "$suite"
  fi
} >"$root/etc/apt/sources.list.d/debian.sources"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
if ! grep -qs localhost "$root/etc/hosts"; then
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
fi

echo "== apt-get install ${pkgs[*]} (ci.yml) + ${image_pkgs[*]} (the runner image's)" >&2
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
  sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"' \
  sh "${pkgs[@]}" "${image_pkgs[@]}" >"$dir/apt.log" 2>&1 ||
  { tail -n 20 "$dir/apt.log" >&2; exit 1; }

# The certificate authorities this machine adds to its own trust store
# (an HTTPS proxy between it and the Go module proxy has one): a
# chroot-only need, as GitHub's runner reaches the module proxy directly.
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >>"$dir/apt.log" 2>&1
fi

# Go, as actions/setup-go puts it: the toolchain only, on PATH.
if [ "$(head -n 1 "$root/usr/local/go/VERSION" 2>/dev/null)" != "$goversion" ]; then
  echo "== Go $goversion from $goroot" >&2
  rm -rf "$root/usr/local/go"
  mkdir -p "$root/usr/local/go"
  cp -a "$goroot/." "$root/usr/local/go/"
fi

# The user, with an empty home unless --keep-cache, and the clone of the
# commit: actions/checkout with fetch-depth 0.
if ! chroot "$root" getent passwd "$user" >/dev/null; then
  chroot "$root" useradd -m -u "$uid" -s /bin/bash "$user"
fi
home="$root/home/$user"
if [ "$keep_cache" = 0 ]; then
  # The module cache is read-only; make it writable to remove it.
  chmod -R u+w "$home" 2>/dev/null || true
  find "$home" -mindepth 1 -delete
else
  rm -rf "$home/work"
fi
mkdir -p "$home/work" "$home/runner-temp"
git clone -q --no-local "$here" "$home/work/template-verify"
git -C "$home/work/template-verify" checkout -q --detach "$sha"
chown -R "$uid:$uid" "$home"

# The job's environment: the variables every step gets on GitHub, Go's
# module download settings from this machine (GOPROXY and friends, so
# modules come the way they do here), and the PATH setup-go leaves.
# GOFLAGS is not passed: GitHub sets none (this machine's -buildvcs=false
# would hide a VCS stamping failure GitHub would hit).
envs=(
  "HOME=/home/$user" "USER=$user" "LOGNAME=$user" "SHELL=/bin/bash" "LANG=C.UTF-8"
  "PATH=/home/$user/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  CI=true GITHUB_ACTIONS=true
  GITHUB_SERVER_URL=https://github.com GITHUB_API_URL=https://api.github.com
  "GITHUB_WORKSPACE=/home/$user/work/template-verify"
  "RUNNER_TEMP=/home/$user/runner-temp"
  "GITHUB_OUTPUT=/home/$user/runner-temp/output"
  "GITHUB_STEP_SUMMARY=/home/$user/runner-temp/step-summary"
  GITHUB_RUN_ID=1
  GOTOOLCHAIN=local
)
for v in GOPROXY GOSUMDB GONOSUMDB GONOPROXY GOPRIVATE GOINSECURE; do
  val=$(go env "$v")
  [ -z "$val" ] || envs+=("$v=$val")
done
envfile=$(mktemp)
trap 'rm -f "$envfile"' EXIT
printf '%s\0' "${envs[@]}" >"$envfile"

echo "== .ci/run at $sha as $user (uid $uid) in $root; log $log" >&2
rc=0
CI_CHROOT_ROOT=$root CI_CHROOT_USER=$user CI_CHROOT_ENVFILE=$envfile \
  unshare --mount --pid --fork --propagation private -- bash "$0" --inside 2>&1 |
  tee "$log" || rc=$?
exit "$rc"
