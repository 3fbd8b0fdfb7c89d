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
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
log=${TMPDIR:-/tmp}/ci-cpu.log
GOCACHE=$(mktemp -d "${TMPDIR:-/tmp}/ci-cpu-gocache-XXXXXX")
export GOCACHE
cg=""
trap 'rm -rf "$GOCACHE"; if [ -n "$cg" ]; then rmdir "$cg" 2>/dev/null || true; fi' EXIT
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
start=$(date +%s)
status=0
if [ -n "$cg" ]; then
  bash -c "echo \$\$ > $cg/cgroup.procs && exec /usr/bin/time -v bash $repo/.ci/run" >"$log" 2>&1 || status=$?
  cpu="$(($(usage_ns) / 1000000000)) CPU-s (cgroup)"
else
  /usr/bin/time -v bash "$repo/.ci/run" >"$log" 2>&1 || status=$?
  cpu="$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.0f", u+s}' "$log") CPU-s (user+sys of the waited-for processes)"
fi
end=$(date +%s)
echo "ci-cpu: exit $status, $((end - start)) s wall, $cpu, load $(cut -d' ' -f1-3 /proc/loadavg) at the end" | tee -a "$log"
exit "$status"
