#!/usr/bin/env bash
# Regenerates docs/comment-failing.png and docs/comment.png: pictures of the
# PR comment that "template-verify demo" writes for the wrong and the right
# pull request of the bundled example, with the links an Action run gives
# it (scripts/commentlinks: lines at head, the commit, the check runs). It renders the markdown with marked and
# GitHub's markdown CSS and takes a screenshot with headless Chromium.
# <details> blocks stay folded, as GitHub shows them.
#
# Needs Go, node with npm (installs marked and github-markdown-css into a
# temporary folder), chromium, an emoji font and pngquant (keeps each PNG
# small). As root it installs the
# missing Debian packages; otherwise it prints the exact command and stops.
# Not part of CI: run it by hand after the comment changes.
#
# Usage: bash scripts/comment-png.sh [--bad-only]
set -euo pipefail
cd "$(dirname "$0")/.."

bad_only=0
case "${1:-}" in
  --bad-only) bad_only=1 ;;
  "") ;;
  *) echo "usage: $0 [--bad-only]" >&2; exit 2 ;;
esac

have_cmd() { command -v "$1" >/dev/null 2>&1; }
need_pkgs=()
have_cmd node || need_pkgs+=(nodejs)
have_cmd npm || need_pkgs+=(npm)
have_cmd chromium || need_pkgs+=(chromium)
have_cmd pngquant || need_pkgs+=(pngquant)
if ! fc-list 2>/dev/null | grep -qi 'color emoji'; then need_pkgs+=(fonts-noto-color-emoji); fi
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "comment-png: installing Debian packages: ${need_pkgs[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >&2
  else
    echo "comment-png: missing packages; run as root:" >&2
    echo "  apt-get install -y --no-install-recommends ${need_pkgs[*]}" >&2
    exit 1
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/tv" ./cmd/template-verify
go build -o "$tmp/links" ./scripts/commentlinks
npm install --silent --no-audit --no-fund --prefix "$tmp/npm" \
  marked@18.2.1 github-markdown-css@5.9.0 >&2

# render.js turns the comment markdown (stdin) into a standalone HTML page.
cat >"$tmp/render.js" <<'EOF'
const fs = require("fs");
const path = require("path");
const { marked } = require(path.join(process.argv[2], "node_modules/marked"));
const css = fs.readFileSync(
  path.join(process.argv[2], "node_modules/github-markdown-css/github-markdown-light.css"), "utf8");
const md = fs.readFileSync(0, "utf8");
const body = marked.parse(md, { gfm: true });
process.stdout.write(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>${css}
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; width: 1000px; padding: 24px 32px; }
</style></head>
<body><article class="markdown-body" id="c">${body}</article>
<script>document.title = "h=" + Math.ceil(document.getElementById("c").getBoundingClientRect().height);</script>
</body></html>
`);
EOF

chrome() { chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "$@" 2>/dev/null; }

# shot NAME OUT [demo flags...] renders one demo comment into docs/OUT.
shot() {
  local name=$1 out=$2; shift 2
  local rc=0
  "$tmp/tv" demo "$@" --format json --progress never >"$tmp/$name.json" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "comment-png: template-verify demo $* exited $rc" >&2
    exit 1
  fi
  # The comment as an Action run publishes it: with its links.
  "$tmp/links" <"$tmp/$name.json" >"$tmp/$name.md"
  node "$tmp/render.js" "$tmp/npm" <"$tmp/$name.md" >"$tmp/$name.html"
  # The page writes its content height into the title; crop the window to it.
  local height
  height=$(chrome --window-size=1000,1000 --dump-dom "file://$tmp/$name.html" |
    sed -n 's/.*<title>h=\([0-9]*\)<\/title>.*/\1/p' | head -n1)
  if [ -z "$height" ]; then
    echo "comment-png: could not measure the page height" >&2
    exit 1
  fi
  chrome --window-size="1000,$height" --screenshot="$tmp/$name.png" "file://$tmp/$name.html" >/dev/null
  mkdir -p docs
  pngquant --force --strip --quality=70-95 --output "docs/$out" -- "$tmp/$name.png"
  echo "docs/$out: 1000x$height, $(wc -c <"docs/$out") bytes (demo $* exit $rc)"
}

shot bad comment-failing.png --bad
if [ "$bad_only" = 0 ]; then
  shot good comment.png
fi
