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
#   demo-prompt     a prompt-only PR: demo --head prompt-on-failing-base,
#                   whose head changes only the prompt template
#   demo-second     a second push: template-verify demo with a cache folder
#                   (TEMPLATE_VERIFY_CACHE_DIR) that one untimed run of the
#                   same binary filled first
#   benchgen        template-verify run on benchgen's head BENCH_HEAD
#                   (default restore-protects-data: every check runs)
#
# It prints the median wall time, the spread (min-max), the median CPU
# time (user+sys of the process tree), the median as a ratio to the
# floor's median, and how many runs exited non-zero. With --old BIN (or
# BENCH_OLD) it times that binary too and prints new/old, the ratios of
# the median wall and CPU times. --cases picks cases
# (comma-separated, the floor always runs).
#
# hyperfine times each run where it is installed (TV_SETUP_BENCH=1
# scripts/setup.sh installs it as root); else /usr/bin/time does
# (--engine bash forces it). The output says which engine timed. Either
# way the new and the old binary run in turn, one run each, N times, so
# that a change of the machine's load falls on both.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${BENCH_RUNS:-5}
old=${BENCH_OLD:-}
cases=${BENCH_CASES:-demo,demo-restore,demo-render,demo-prompt,demo-second,benchgen}
engine=${BENCH_ENGINE:-}
head=${BENCH_HEAD:-restore-protects-data}
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --old) old=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --engine) engine=$2; shift 2 ;;
    -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
    demo-prompt) echo "$2 demo --head prompt-on-failing-base" ;;
    demo-second) echo "env TEMPLATE_VERIFY_CACHE_DIR=$(cache_of "$2") $2 demo" ;;
    benchgen) echo "$2 run --repo $work/benchgen-repo --base main --head $head" ;;
    *) echo "bench.sh: unknown case $1 (floor, demo, demo-restore, demo-render, demo-prompt, demo-second, benchgen)" >&2; return 2 ;;
  esac
}

# cache_of BIN is the cache folder of a binary's second-push runs.
cache_of() { echo "$work/cache-$(printf %s "$1" | cksum | cut -d' ' -f1)"; }

# prepare CASE BIN runs what a case needs before it is timed: the first
# push that fills the cache folder of demo-second.
prepare() {
  case "$1" in
    demo-second) bash -c "$(cmd "$1" "$2")" >/dev/null 2>&1 || true ;;
  esac
}

# CPU time. The user+sys of waited-for children misses processes that
# leave the tree: under bubblewrap the sandbox's init outlives bubblewrap
# and is reaped by init, not by the tool. Where this script may make a
# cgroup (root; cgroup v1 cpuacct or v2), each run goes into one and its
# CPU is the cgroup's usage, which counts every process of the run; else
# it is the children's user+sys, and the output says so.
cg=""
cg_usage() { # the cgroup's CPU usage in nanoseconds
  if [ -f "$cg/cpuacct.usage" ]; then cat "$cg/cpuacct.usage"
  else awk '$1 == "usage_usec" {print $2 * 1000}' "$cg/cpu.stat"; fi
}
for root in /sys/fs/cgroup/cpuacct /sys/fs/cgroup; do
  if [ -w "$root" ] && { [ -f "$root/cpuacct.usage" ] || [ -f "$root/cgroup.controllers" ]; } &&
    mkdir "$root/tv-bench-$$" 2>/dev/null; then
    cg=$root/tv-bench-$$
    break
  fi
done
trap 'rm -rf "$work"; [ -z "$cg" ] || rmdir "$cg" 2>/dev/null || true' EXIT
if [ -n "$cg" ]; then
  cpu_source="CPU: the usage of a cgroup that holds each run ($cg)"
else
  cpu_source="CPU: user+sys of the waited-for processes (no cgroup here; misses the processes of a bubblewrap sandbox)"
fi
# in_cgroup CMD prints CMD wrapped so that it runs inside the cgroup.
in_cgroup() {
  if [ -n "$cg" ]; then printf 'bash -c %q' "echo \$\$ > $cg/cgroup.procs && exec $1"; else printf '%s' "$1"; fi
}

# Each timed run appends "CASE BIN WALL CPU EXIT" to $work/times.
: >"$work/times"
time_bash() { # CASE LABEL BIN
  local c u0 u1
  c=$(in_cgroup "$(cmd "$1" "$3")")
  [ -z "$cg" ] || u0=$(cg_usage)
  /usr/bin/time -f "%e %U %S %x" -o "$work/one" bash -c "$c" >/dev/null 2>&1 || true
  [ -z "$cg" ] || u1=$(cg_usage)
  awk -v k="$1" -v l="$2" -v cgcpu="${u0:+$(( u1 - u0 ))}" \
    '{cpu = $2 + $3; if (cgcpu != "") cpu = cgcpu / 1e9; printf "%s %s %s %.3f %s\n", k, l, $1, cpu, $4}' "$work/one" >>"$work/times"
}
time_hyperfine() { # CASE LABEL BIN: one run, timed by hyperfine
  local u0 u1
  [ -z "$cg" ] || u0=$(cg_usage)
  hyperfine -N -i --style none --runs 1 --export-json "$work/h.json" "$(in_cgroup "$(cmd "$1" "$3")")" >/dev/null 2>&1
  [ -z "$cg" ] || u1=$(cg_usage)
  python3 - "$work/h.json" "$1" "$2" "${u0:+$(( u1 - u0 ))}" >>"$work/times" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
cpu = r["user"] + r["system"]
if sys.argv[4]:
    cpu = int(sys.argv[4]) / 1e9
print(sys.argv[2], sys.argv[3], "%.3f" % r["times"][0], "%.3f" % cpu, r["exit_codes"][0])
PY
}

# run_case times N runs of a case; with an old binary, the new and the
# old run in turn, one run each, so that a change of the machine's load
# falls on both.
run_case() { # CASE
  local i
  prepare "$1" "$new"
  if [ -n "$old" ] && [ "$1" != floor ]; then prepare "$1" "$old"; fi
  for i in $(seq "$runs"); do
    "time_$engine" "$1" new "$new"
    if [ -n "$old" ] && [ "$1" != floor ]; then "time_$engine" "$1" old "$old"; fi
    echo "  $1: run $i of $runs done ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))" >&2
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
  echo "  $c: load after the case $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$cpu_source"

python3 - "$work/times" "$cases" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, label, wall, cpu, code = line.split()
    rows.setdefault((k, label), []).append((float(wall), float(cpu), int(code)))
floor = statistics.median(r[0] for r in rows[("floor", "new")])
print()
print("| case | binary | median wall s | min-max s | CPU-s (median) | / floor | new/old wall | new/old CPU | exit not 0 |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for k in ["floor"] + [c for c in sys.argv[2].split(",") if c != "floor"]:
    for label in ("new", "old"):
        r = rows.get((k, label))
        if not r:
            continue
        walls = [x[0] for x in r]
        med = statistics.median(walls)
        cpu = statistics.median(x[1] for x in r)
        failed = sum(1 for x in r if x[2] != 0)
        ratio = cpuratio = ""
        if label == "new" and (k, "old") in rows:
            o = rows[(k, "old")]
            ratio = "%.2f" % (med / statistics.median(x[0] for x in o))
            cpuratio = "%.2f" % (cpu / statistics.median(x[1] for x in o))
        print("| %s | %s | %.2f | %.2f-%.2f | %.2f | %.1f | %s | %s | %d of %d |" % (
            k, label, med, min(walls), max(walls), cpu, med / floor, ratio, cpuratio, failed, len(r)))
PY
