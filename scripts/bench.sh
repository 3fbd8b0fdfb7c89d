#!/usr/bin/env bash
# Times template-verify as a user runs it: whole processes, end to end.
#
#   scripts/bench.sh [--runs N] [--old BIN] [--cases LIST] [--engine hyperfine|bash]
#
# It builds template-verify from this checkout (into a scratch folder) and the second proof
# repository (examples/benchgen, with scripts/benchgen), then times, N runs
# each (default 5, or BENCH_RUNS):
#
#   floor           200 starts of /bin/true (the machine's floor)
#   demo            template-verify demo
#   demo-restore    template-verify demo --only restore
#   demo-render     template-verify demo --only render
#   benchgen        template-verify run on benchgen's head BENCH_HEAD
#                   (default restore-protects-data: every check runs)
#
# It prints the median wall time, the spread (min-max), the mean CPU time
# (user+sys) and the median as a ratio to the floor's median. With --old BIN
# (or BENCH_OLD) it times that binary too, case by case next to the new one,
# and prints new/old, the ratio of the medians. --cases picks cases
# (comma-separated, the floor always runs).
#
# hyperfine times the runs where it is installed (TV_SETUP_BENCH=1
# scripts/setup.sh installs it as root); else plain bash timing does
# (--engine bash forces it), and then the old and new binaries run in turn,
# one run each, N times. The output says which engine timed.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${BENCH_RUNS:-5}
old=${BENCH_OLD:-}
cases=${BENCH_CASES:-demo,demo-restore,demo-render,benchgen}
engine=${BENCH_ENGINE:-}
head=${BENCH_HEAD:-restore-protects-data}
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --old) old=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --engine) engine=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$runs" in ''|*[!0-9]*|0) echo "bench.sh: --runs wants a positive number, not '$runs'" >&2; exit 2 ;; esac
if [ -n "$old" ]; then
  [ -x "$old" ] || { echo "bench.sh: --old $old is not an executable file" >&2; exit 2; }
  old=$(readlink -f "$old")
fi
if [ -z "$engine" ]; then
  if command -v hyperfine >/dev/null 2>&1; then engine=hyperfine; else engine=bash; fi
fi
case "$engine" in hyperfine|bash) ;; *) echo "bench.sh: --engine hyperfine or bash" >&2; exit 2 ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/tv-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
# Into the scratch folder: a run in progress keeps its binary.
go build -o "$work/template-verify" ./cmd/template-verify
new=$work/template-verify
go build -o "$work/benchgen" ./scripts/benchgen
"$work/benchgen" "$work/benchgen-repo" >/dev/null

# cmd CASE BIN prints the command line of a case.
cmd() {
  case "$1" in
    floor) echo "bash -c 'for i in {1..200}; do /bin/true; done'" ;;
    demo) echo "$2 demo" ;;
    demo-restore) echo "$2 demo --only restore" ;;
    demo-render) echo "$2 demo --only render" ;;
    benchgen) echo "$2 run --repo $work/benchgen-repo --base main --head $head" ;;
    *) echo "bench.sh: unknown case $1 (floor, demo, demo-restore, demo-render, benchgen)" >&2; return 2 ;;
  esac
}

# Each timed run appends "CASE BIN WALL CPU" to $work/times.
: >"$work/times"
time_bash() { # CASE LABEL BIN
  local c
  c=$(cmd "$1" "$3")
  /usr/bin/time -f "%e %U %S" -o "$work/one" bash -c "$c" >/dev/null 2>&1 || true
  awk -v k="$1" -v l="$2" '{printf "%s %s %s %.3f\n", k, l, $1, $2+$3}' "$work/one" >>"$work/times"
}
time_hyperfine() { # CASE, then LABEL BIN pairs
  local k=$1 i=0
  shift
  local args=() labels=()
  while [ $# -gt 0 ]; do
    labels+=("$1")
    args+=(-n "$1" "$(cmd "$k" "$2")")
    shift 2
  done
  hyperfine -N -i --style basic --runs "$runs" --export-json "$work/h.json" "${args[@]}" >&2
  python3 - "$work/h.json" "$k" >>"$work/times" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    # hyperfine gives the CPU time as a mean only: one line per run with it.
    cpu = r["user"] + r["system"]
    for t in r["times"]:
        print(sys.argv[2], r["command"], "%.3f" % t, "%.3f" % cpu)
PY
}

run_case() { # CASE
  if [ "$engine" = hyperfine ]; then
    if [ -n "$old" ] && [ "$1" != floor ]; then
      time_hyperfine "$1" new "$new" old "$old"
    else
      time_hyperfine "$1" new "$new"
    fi
    return
  fi
  for _ in $(seq "$runs"); do
    time_bash "$1" new "$new"
    if [ -n "$old" ] && [ "$1" != floor ]; then time_bash "$1" old "$old"; fi
  done
}

echo "bench.sh: engine $engine, $runs runs a case, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "new: built from $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' 2>/dev/null || echo ' with uncommitted changes')"
[ -z "$old" ] || echo "old: $old"
run_case floor
IFS=, read -r -a list <<<"$cases"
for c in "${list[@]}"; do
  [ "$c" = floor ] && continue
  cmd "$c" x >/dev/null
  run_case "$c"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$work/times" "$cases" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, label, wall, cpu = line.split()
    rows.setdefault((k, label), []).append((float(wall), float(cpu)))
floor = statistics.median(w for w, _ in rows[("floor", "new")])
print()
print("| case | binary | median wall s | min-max s | CPU-s (mean) | / floor | new/old |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for k in ["floor"] + [c for c in sys.argv[2].split(",") if c != "floor"]:
    for label in ("new", "old"):
        r = rows.get((k, label))
        if not r:
            continue
        walls = [w for w, _ in r]
        med = statistics.median(walls)
        cpu = statistics.mean(c for _, c in r)
        ratio = ""
        if label == "new" and (k, "old") in rows:
            ratio = "%.2f" % (med / statistics.median(w for w, _ in rows[(k, "old")]))
        print("| %s | %s | %.2f | %.2f-%.2f | %.2f | %.1f | %s |" % (
            k, label, med, min(walls), max(walls), cpu, med / floor, ratio))
PY
