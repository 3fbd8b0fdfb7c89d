#!/usr/bin/env bash
# The grader of task {{ task_name }}, with its own names: the checkout is
# /srv/checkout, the starting revision is in /srv/meta/start_rev, and the
# report is /var/grade/out/reset_report.json with its own keys.
set -euo pipefail

# ── Grade inputs ──
START_REV='{{ start_sha }}'
if [[ -f /srv/meta/start_rev ]]; then
  START_REV=$(tr -d '[:space:]' < /srv/meta/start_rev)
fi
OUT=/var/grade/out

# ── Reset guarded files ──
# Guarded paths go back to $START_REV; the rest of the agent's work stays.
guards=$(mktemp)
cat > "$guards" <<'GUARDS'
^grading/
(^|/)fixtures?/
(^|/)pytest\.ini$
(^|/)tests?/
GUARDS

json_str() {
  local LC_ALL=C s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}

json_arr() {
  local sep='' p
  printf '['
  for p in "$@"; do printf '%s' "$sep"; json_str "$p"; sep=', '; done
  printf ']'
}

refuse() {
  mkdir -p "$OUT"
  printf '{"restored": false, "why": %s}\n' "$(json_str "$1")" > "$OUT/reset_report.json"
}

changed_guarded() {
  { git diff --name-only -z --no-renames "$1" -- && git ls-files -z --others --exclude-standard; } |
    { grep -zE -f "$guards" || [ "$?" = 1 ]; } | LC_ALL=C sort -zu
}

reset_guarded() (
  local p
  local -a hits=() reset=() left=()
  cd /srv/checkout || { refuse "no checkout"; return 0; }
  if [[ ! -f /srv/meta/start_rev ]]; then refuse "no start revision"; return 0; fi
  if ! git merge-base --is-ancestor "$START_REV" HEAD 2>/dev/null; then refuse "HEAD is not from the start revision"; return 0; fi
  mapfile -d '' -t hits < <(changed_guarded "$START_REV")
  for p in "${hits[@]}"; do
    if git cat-file -e "$START_REV:$p" 2>/dev/null; then
      if [ -L "$p" ] || [ -d "$p" ]; then rm -rf -- "$p"; fi
      GIT_LITERAL_PATHSPECS=1 git checkout -q "$START_REV" -- "$p"
    else
      GIT_LITERAL_PATHSPECS=1 git rm -q --cached --ignore-unmatch -- "$p" > /dev/null
      rm -rf -- "$p"
    fi
    reset+=("$p")
  done
  mapfile -d '' -t left < <(changed_guarded "$START_REV")
  mkdir -p "$OUT"
  printf '{"restored": true, "start_sha": %s, "reset": %s, "left": %s}\n' \
    "$(json_str "$START_REV")" "$(json_arr "${reset[@]}")" "$(json_arr "${left[@]}")" > "$OUT/reset_report.json"
)
reset_guarded

# ── Score ──
echo "scored {{ task_name }}"
