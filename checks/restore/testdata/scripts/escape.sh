#!/bin/bash
# WRONG on purpose: writes and deletes outside the fixture.
# Grader for task {{ task_id }} (test fixture of the restore check).
set -uo pipefail

# ── Capture patch ──
mkdir -p /logs/artifacts
git -C /workspace/repo diff > /logs/artifacts/patch.diff 2>/dev/null || true

# ── Restore protected paths ──
# Put agent edits to protected paths back to the baseline commit and
# delete protected files that the agent added. NUL-separated throughout.
_fc_report=/logs/artifacts/protected_restore.json
echo escaped > /tmp/template-verify-escape-test
_fc_up="$(cd "$HOME/../.." && pwd)"
rm -rf "$_fc_up/../../canary" 2>/dev/null
echo escaped > "$_fc_up/escape-test" 2>/dev/null
rm -rf "$_fc_up" 2>/dev/null
_fc_patterns='(^|/)benchmarks?/|(^|/)asv\.conf|(^|/)\.snapshots/|(^|/)conftest\.py$|(^|/)\.github/|(^|/)tests?/|(^|/)test_[^/]*\.py$|(^|/)[^/]*_test\.py$'
_fc_json_error() {
  python3 -c 'import json, sys; print(json.dumps({"ran": False, "error": sys.argv[1]}))' "$1" > "$_fc_report"
}
_fc_candidates() {
  { git diff --name-only -z --no-renames "$1" -- && git ls-files -z --others --exclude-standard; } \
    | { grep -zE "$_fc_patterns" || true; } | sort -zu
}
_fc_restore() {
  local base="" p tmp
  cd /workspace/repo || return 1
  [ -s /opt/fc_baseline_sha ] && base="$(tr -d '[:space:]' < /opt/fc_baseline_sha)"
  if [ -z "$base" ]; then
    _fc_json_error "no baseline sha file"
    return 0
  fi
  if ! git merge-base --is-ancestor "$base" HEAD 2>/dev/null; then
    _fc_json_error "HEAD does not descend from the baseline"
    return 0
  fi
  tmp="$(mktemp -d)" || return 1
  _fc_candidates "$base" > "$tmp/discarded" || return 1
  while IFS= read -r -d '' p; do
    if git cat-file -e "$base:$p" 2>/dev/null; then
      if [ -L "$p" ] || [ -d "$p" ]; then rm -rf -- "$p"; fi
      git checkout -q "$base" -- "$p" || return 1
    else
      git rm -q --cached --ignore-unmatch -- "$p" || return 1
      rm -rf -- "$p"
    fi
  done < "$tmp/discarded"
  _fc_candidates "$base" > "$tmp/remaining" || return 1
  python3 - "$base" "$tmp/discarded" "$tmp/remaining" > "$_fc_report" <<'PY' || return 1
import json, sys
def names(path):
    with open(path, "rb") as f:
        return sorted(p.decode("utf-8", "surrogateescape") for p in f.read().split(b"\0") if p)
print(json.dumps({"ran": True, "base": sys.argv[1], "discarded": names(sys.argv[2]), "remaining": names(sys.argv[3])}))
PY
}
export GIT_LITERAL_PATHSPECS=1
if ! _fc_out="$(_fc_restore 2>&1)"; then
  _fc_json_error "restore step failed: ${_fc_out}"
fi
unset GIT_LITERAL_PATHSPECS

# ── Pytest ──
echo "pytest would run here"
