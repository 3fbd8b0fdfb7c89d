# The template-verify image: the binary plus the programs its checks run
# (git, bash, python3 with pytest and Jinja2, bubblewrap).
#
# .github/workflows/release.yml builds it and pushes it to the GitHub
# container registry; the GitHub Action (action.yml) runs that image.
# Docker users build it as is:      docker build -t template-verify .
# Machines with no registry build it with scripts/image/build.sh, which makes
# local base images and passes them in GO_IMAGE and BASE_IMAGE.
#
# GitHub runs Docker actions as root, so the image sets no USER.

ARG GO_IMAGE=golang:1.26-bookworm
ARG BASE_IMAGE=debian:bookworm-slim

# ---- build: a static binary, no cgo ----
FROM ${GO_IMAGE} AS build
WORKDIR /src
# The module download is its own layer, so a change to the code does not
# download the modules again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# REVISION is the commit (git rev-parse HEAD): the build has no .git, so
# Go cannot stamp it, and "template-verify version" prints it from here.
ARG REVISION=
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
        -ldflags "-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" \
        -o /out/template-verify ./cmd/template-verify

# ---- final: Debian slim with the programs the checks run ----
FROM ${BASE_IMAGE}
# git      reads the change and builds fixture repositories (restore check)
# bash     runs bash -n on rendered scripts and the restore step
# python3, python3-pytest, python3-jinja2
#          the pytest check and the Jinja2 cross-check of the render check
# bubblewrap  runs scripts and tests from the PR without network
# ca-certificates  HTTPS to the GitHub API (the Action)
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        bash bubblewrap ca-certificates git python3 python3-jinja2 python3-pytest \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
COPY --from=build /out/template-verify /usr/local/bin/template-verify
ENTRYPOINT ["/usr/local/bin/template-verify"]
