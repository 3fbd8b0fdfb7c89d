#!/usr/bin/env bash
# The grader stops at the first command that fails, at an unset variable, and
# at a failure anywhere in a pipeline. The restore step runs under these too.
set -euo pipefail

# ── Skip flags ──
# Read before any file is sourced. Only the exact value 1 turns a step off.
if [ "${FC_SKIP_PYTEST-}" = "1" ]; then _fc_skip_pytest=1; else _fc_skip_pytest=0; fi
if [ "${FC_SKIP_SNAPSHOT-}" = "1" ]; then _fc_skip_snapshot=1; else _fc_skip_snapshot=0; fi
readonly _fc_skip_pytest _fc_skip_snapshot
unset FC_SKIP_PYTEST FC_SKIP_SNAPSHOT

# Grader of task {{ task_id }}: {{ owner }}/{{ repo }} at {{ base_commit }}.
# Every step writes its result under /logs/artifacts.
mkdir -p /logs/artifacts

# ── Source profile ──
# The agent can write these files. The skip flags above are readonly, so the
# files cannot change them.
for _fc_profile in /etc/profile.d/*.sh; do
  if [ -r "$_fc_profile" ]; then
    # shellcheck disable=SC1090
    . "$_fc_profile"
  fi
done
unset _fc_profile

# ── Capture patch ──
# The full agent diff against the starting tree, untracked files included.
# setup.sh writes the starting-tree commit to /opt/fc_baseline_sha; without
# that file (an older setup.sh), the task's upstream base commit is used.
_fc_patch_base='{{ base_commit }}'
if [ -s /opt/fc_baseline_sha ]; then
  _fc_patch_base="$(tr -d '[:space:]' < /opt/fc_baseline_sha)"
fi
(
  cd /workspace/repo || exit 1
  git diff --binary "$_fc_patch_base" --
  git ls-files -z --others --exclude-standard |
    while IFS= read -r -d '' _fc_new; do
      git diff --binary --no-index -- /dev/null "$_fc_new"
    done
) > /logs/artifacts/patch.diff 2>/dev/null || true

# ── Restore protected paths ──
# Agent edits to protected paths go back to the starting-tree commit
# $_fc_patch_base (from /opt/fc_baseline_sha, else the task's base commit)
# before timing and tests. patch.diff keeps the full agent diff. Path lists
# stay NUL-separated, so every file name works.
# The step writes /logs/artifacts/protected_restore.json:
#   {"ran": true, "base": "<sha>", "discarded": [...], "remaining": [...]}
#   {"ran": false, "error": "<message>"} when it does not run or stops.
_fc_restore_patterns=(
  -e '(^|/)benchmarks?/'
  -e '(^|/)asv\.conf'
  -e '(^|/)\.snapshots/'
  -e '(^|/)conftest\.py$'
  -e '(^|/)\.github/'
)

# _fc_json_string prints $1 as a JSON string. Bytes above 0x7f stay as they
# are (UTF-8); control characters become \u00XX escapes.
_fc_json_string() {
  local LC_ALL=C s=$1 c u i
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  # Most names have no control characters: skip the loop (and its forks).
  if [[ $s == *[$'\001'-$'\037']* ]]; then
    for ((i = 1; i < 32; i++)); do
      printf -v c "\\$(printf '%03o' "$i")"
      printf -v u '\\u%04x' "$i"
      s=${s//"$c"/$u}
    done
  fi
  printf '"%s"' "$s"
}

# _fc_json_list prints its arguments as a JSON list of strings.
_fc_json_list() {
  local sep='' p
  printf '['
  for p in "$@"; do
    printf '%s' "$sep"
    _fc_json_string "$p"
    sep=', '
  done
  printf ']'
}

# _fc_restore_error writes a report with ran=false and the message $1.
_fc_restore_error() {
  mkdir -p /logs/artifacts
  printf '{"ran": false, "error": %s}\n' "$(_fc_json_string "$1")" > /logs/artifacts/protected_restore.json
  echo "restore: not run: $1" >&2
}

# _fc_protected_paths prints the protected paths that differ from commit $1:
# committed, staged, unstaged and untracked changes, NUL-separated and sorted.
_fc_protected_paths() {
  {
    git diff --name-only -z --no-renames "$1" -- || return 1
    git ls-files -z --others --exclude-standard || return 1
  } | { grep -zE "${_fc_restore_patterns[@]}" || [ "$?" = 1 ]; } | LC_ALL=C sort -zu
}

# _fc_restore_protected runs in a subshell, so cd and set stay inside it.
_fc_restore_protected() (
  set -o pipefail
  local base='' p
  local -a found=() discarded=() remaining=()
  mkdir -p /logs/artifacts
  cd /workspace/repo || { _fc_restore_error "no repository at /workspace/repo"; return 0; }
  base="$_fc_patch_base"
  if [ -z "$base" ]; then
    _fc_restore_error "no base commit"
    return 0
  fi
  if ! git merge-base --is-ancestor "$base" HEAD 2>/dev/null; then
    _fc_restore_error "HEAD does not descend from the baseline"
    return 0
  fi
  mapfile -d '' -t found < <(_fc_protected_paths "$base")
  if ! wait "$!"; then
    _fc_restore_error "cannot list the changed paths"
    return 0
  fi
  for p in "${found[@]}"; do
    if git cat-file -e "$base:$p" 2>/dev/null; then
      # Content, mode and type come back from the baseline.
      if [ -L "$p" ] || [ -d "$p" ]; then
        rm -rf -- "$p"
      fi
      if ! GIT_LITERAL_PATHSPECS=1 git checkout -q "$base" -- "$p"; then
        _fc_restore_error "git checkout of a protected path failed: $p"
        return 0
      fi
    else
      # The agent added the path: remove it from the index and the tree.
      if ! GIT_LITERAL_PATHSPECS=1 git rm -q --cached --ignore-unmatch -- "$p" > /dev/null; then
        _fc_restore_error "git rm of an added protected path failed: $p"
        return 0
      fi
      if [ -e "$p" ] || [ -L "$p" ]; then
        rm -rf -- "$p"
      fi
    fi
    discarded+=("$p")
  done
  mapfile -d '' -t remaining < <(_fc_protected_paths "$base")
  if ! wait "$!"; then
    _fc_restore_error "cannot list the changed paths after the restore"
    return 0
  fi
  {
    printf '{"ran": true, "base": %s, "discarded": ' "$(_fc_json_string "$base")"
    _fc_json_list "${discarded[@]}"
    printf ', "remaining": '
    _fc_json_list "${remaining[@]}"
    printf '}\n'
  } > /logs/artifacts/protected_restore.json
  echo "restore: discarded ${discarded[*]:-nothing}; remaining ${remaining[*]:-nothing}"
)

if ! _fc_restore_protected; then
  _fc_restore_error "the restore step stopped"
fi

# ── Timing ──
{% if rounds is not none %}echo "timing: {{ rounds }} rounds"{% else %}echo "timing: rounds not set, timing skipped"{% endif %}

# ── Pytest ──
{%- if run_pytest %}
if [ "$_fc_skip_pytest" = "1" ]; then
  echo '{"pytest_skipped": "FC_SKIP_PYTEST", "tests_ran": false, "tests_passed": null}' > /logs/artifacts/test_results.json
  echo "pytest: skipped by FC_SKIP_PYTEST=1"
else
  (
    cd /workspace/repo || exit 1
    python3 /tests/pytest_runner.py --base "$_fc_patch_base"
  )
fi
{%- else %}
echo '{"pytest_skipped": "run_pytest=false", "tests_ran": false, "tests_passed": null}' > /logs/artifacts/test_results.json
echo "pytest: skipped, the task has run_pytest=false"
{%- endif %}

# ── Parse ──
python3 /tests/parser.py /logs/artifacts/test_results.json /logs/artifacts/reward.json
