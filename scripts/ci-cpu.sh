#!/usr/bin/env bash
# Times `bash .ci/run` as a fresh CI machine runs it: an empty Go build
# cache (GOCACHE a new folder; the module cache is kept), wall time and the
# CPU of every process of the run, the sandboxed steps and the servers the
# tests start included. The CPU is the usage of a cpuacct cgroup (cgroup v1)
# or of a cgroup v2 folder that holds the run, so it needs root; without
# one it prints only the wall time and /usr/bin/time's user+sys, which
# misses the processes of a bubblewrap sandbox.
#
#   sudo scripts/ci-cpu.sh            # this checkout's committed HEAD
#   sudo scripts/ci-cpu.sh DIR        # the clone in DIR
#
# The log is in ${TMPDIR:-/tmp}/ci-cpu.log; the last line is the result.
# With a cgroup it also prints each step of .ci/run (its "== NAME" lines:
# gofmt, go vet, staticcheck, actionlint, go test -race) with its wall
# time and CPU, read from the cgroup when the step's line appears (polled
# once a second).
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
log=${TMPDIR:-/tmp}/ci-cpu.log
GOCACHE=$(mktemp -d "${TMPDIR:-/tmp}/ci-cpu-gocache-XXXXXX")
export GOCACHE
cg=""
trap 'rm -rf "$GOCACHE" ${steps:+"$steps"}; if [ -n "$cg" ]; then rmdir "$cg" 2>/dev/null || true; fi' EXIT
for root in /sys/fs/cgroup/cpuacct /sys/fs/cgroup; do
  if [ -w "$root" ] && { [ -f "$root/cpuacct.usage" ] || [ -f "$root/cgroup.controllers" ]; }; then
    cg="$root/template-verify-ci-$$"
    mkdir "$cg"
    break
  fi
done
usage_ns() { # the cgroup's CPU usage in nanoseconds
  if [ -f "$cg/cpuacct.usage" ]; then
    cat "$cg/cpuacct.usage"
  else
    echo $(($(awk '$1 == "usage_usec" {print $2}' "$cg/cpu.stat") * 1000))
  fi
}
# watch_steps appends "SECONDS USAGE_NS LINE" to $steps whenever the log's
# last "== " line changes, until it is killed.
steps=""
watch_steps() {
  local last="" cur
  while :; do
    cur=$(grep -a '^== ' "$log" 2>/dev/null | tail -1 || true)
    if [ -n "$cur" ] && [ "$cur" != "$last" ]; then
      echo "$(date +%s) $(usage_ns) ${cur#== }" >>"$steps"
      last=$cur
    fi
    sleep 1
  done
}
start=$(date +%s)
status=0
if [ -n "$cg" ]; then
  : >"$log"
  steps=$(mktemp "${TMPDIR:-/tmp}/ci-cpu-steps-XXXXXX")
  echo "$start 0 set-up (before the first step)" >"$steps"
  watch_steps &
  watcher=$!
  bash -c "echo \$\$ > $cg/cgroup.procs && exec /usr/bin/time -v bash $repo/.ci/run" >"$log" 2>&1 || status=$?
  kill "$watcher" 2>/dev/null || true
  wait "$watcher" 2>/dev/null || true
  echo "$(date +%s) $(usage_ns) end" >>"$steps"
  # Each step from its line to the next one's.
  awk '{ t[NR] = $1; u[NR] = $2; $1 = $2 = ""; sub(/^  /, ""); sub(/ \(at [0-9]+s\)$/, ""); name[NR] = $0 }
    END { for (i = 1; i < NR; i++) if (name[i] !~ /^done in/) printf "ci-cpu: step %-24s %5d s wall, %6d CPU-s\n", name[i], t[i+1] - t[i], (u[i+1] - u[i]) / 1e9 }' "$steps" | tee -a "$log"
  cpu="$(($(usage_ns) / 1000000000)) CPU-s (cgroup)"
else
  /usr/bin/time -v bash "$repo/.ci/run" >"$log" 2>&1 || status=$?
  cpu="$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.0f", u+s}' "$log") CPU-s (user+sys of the waited-for processes)"
fi
end=$(date +%s)
echo "ci-cpu: exit $status, $((end - start)) s wall, $cpu, load $(cut -d' ' -f1-3 /proc/loadavg) at the end" | tee -a "$log"
exit "$status"
