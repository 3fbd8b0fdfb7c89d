#!/usr/bin/env bash
# Builds the template-verify image with podman on a Debian machine that
# reaches Debian's packages but no container registry.
#
#   1. installs debootstrap, podman, buildah and runc (Debian packages);
#   2. makes the base image localhost/debian:bookworm-slim with debootstrap
#      (skipped when it exists);
#   3. makes a Go build image from that base and this machine's Go toolchain
#      (skipped when it exists);
#   4. builds the Dockerfile with --pull=never and tags it template-verify:dev.
#
# Needs root. Environment: TV_MIRROR and TV_SECURITY_MIRROR override the
# Debian mirrors read from /etc/apt; TV_IMAGE overrides the tag.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/image/lib.sh
. "$here/lib.sh"

[ "$(id -u)" = 0 ] || die "run as root: it installs Debian packages and runs podman as root."
start=$SECONDS
step() { log "$1 ($((SECONDS - start)) s)"; }

# ---- 1. tools ----
need=()
for pair in debootstrap:debootstrap podman:podman buildah:buildah runc:runc; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}")
done
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] || need+=(debian-archive-keyring)
if [ "${#need[@]}" -gt 0 ]; then
  step "installing Debian packages: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
command -v go >/dev/null 2>&1 || die "Go is not on PATH; the build image copies this machine's Go toolchain."
use_podman_conf

# ---- 2. base image ----
if podman image exists "$TV_BASE_IMAGE"; then
  step "base image $TV_BASE_IMAGE exists, skipped"
else
  mirror=${TV_MIRROR:-$(apt_uri "$TV_SUITE")}
  security=${TV_SECURITY_MIRROR:-$(apt_uri "$TV_SUITE-security")}
  [ -n "$mirror" ] || die "no apt source for $TV_SUITE in /etc/apt; set TV_MIRROR to a Debian mirror URI."
  rootfs="$TV_STATE/rootfs"
  rm -rf "$rootfs"
  step "debootstrap --variant=minbase $TV_SUITE from $mirror"
  debootstrap --variant=minbase "$TV_SUITE" "$rootfs" "$mirror" >"$TV_STATE/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $TV_STATE/debootstrap.log"
  {
    echo "deb $mirror $TV_SUITE main"
    echo "deb $mirror $TV_SUITE-updates main"
    if [ -n "$security" ]; then echo "deb $security $TV_SUITE-security main"; fi
  } >"$rootfs/etc/apt/sources.list"
  [ -n "$security" ] || log "no apt source for $TV_SUITE-security; the base image gets no security updates."
  # Like the slim image: dpkg and apt keep no documentation, manuals,
  # translations or package caches.
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
CFG
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$rootfs"/usr/share/{man,info,groff,lintian,linda}/*
  find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
  step "importing $TV_BASE_IMAGE"
  tar -C "$rootfs" -c . | podman import --change 'CMD ["bash"]' - "$TV_BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
fi

# ---- 3. Go build image ----
goroot=$(go env GOROOT)
gover=$(go env GOVERSION)
go_image="localhost/template-verify-go:${gover#go}"
if podman image exists "$go_image"; then
  step "Go build image $go_image exists, skipped"
else
  step "making $go_image from $goroot"
  ca=()
  if [ -d /usr/local/share/ca-certificates ]; then
    ca=(--volume /usr/local/share/ca-certificates:/run/host-ca:ro)
  fi
  podman build --pull=never -q --build-arg "BASE_IMAGE=$TV_BASE_IMAGE" "${ca[@]}" \
    -f "$here/go.Containerfile" --ignorefile "$here/go.dockerignore" \
    -t "$go_image" "$goroot" >/dev/null
fi

# ---- 4. the image ----
version=$(git -C "$repo" describe --tags --always --dirty 2>/dev/null || echo dev)
step "building $TV_IMAGE (version $version)"
# --jobs=2: the Go stage and the final stage's apt-get run at the same time.
# The Go build cache is a folder of this machine, mounted into every RUN
# step, so a rebuild after a code change compiles only what changed.
mkdir -p "$TV_STATE/go-build-cache"
podman build --pull=never --jobs=2 \
  --volume "$TV_STATE/go-build-cache:/root/.cache/go-build" \
  --build-arg "GO_IMAGE=$go_image" \
  --build-arg "BASE_IMAGE=$TV_BASE_IMAGE" \
  --build-arg "VERSION=$version" \
  --build-arg "REVISION=$(git -C "$repo" rev-parse HEAD)" \
  -t "$TV_IMAGE" -f "$repo/Dockerfile" "$repo" >&2
step "done"
podman image ls "$TV_IMAGE"
