#!/usr/bin/env bash
# Runs BenchmarkWebhookAck (the webhook's answer at 200 deliveries/s, on
# SQLite and on Postgres) the way the App is deployed: in a CPU cgroup of
# its own, with Postgres started inside it by scripts/pg.sh.
#
#   scripts/webhook-bench.sh [--bare] [go test flags…]
#
# With no flags it runs
#   go test -run XXX -bench WebhookAck -benchtime 1x ./app
# and flags given are added after those (a later -bench wins), for example
#   scripts/webhook-bench.sh -bench WebhookAck/postgres/steady -args -ackcount 2000 -ackonly
#
# Why a cgroup: with kernel.sched_autogroup_enabled=1, Linux makes every
# session a CPU group of its own, but only for processes in the root CPU
# cgroup (task_wants_autogroup in kernel/sched/autogroup.c). Postgres starts
# each backend in a session of its own, so there every connection gets the
# CPU share of the whole App, whatever the nice levels, and the App shares
# one group with the sender and the fake GitHub. A container, a systemd
# service and a systemd login session are each a cgroup, where autogroup
# does not apply and nice levels work; a shell in the root cgroup of a
# machine with no systemd, like this one's, is the exception.
#
# As root in the root CPU cgroup (cgroup v1 "cpu" or v2 with the cpu
# controller), this script makes a child cgroup, moves itself into it,
# runs the benchmark there and removes the cgroup at the end. Anywhere
# else (not root, already in a cgroup, or a cgroup file system it cannot
# write), it runs the benchmark where it is. --bare skips the cgroup, to compare. The benchmark prints the setting
# and the CPU cgroup it ran in.
set -euo pipefail
cd "$(dirname "$0")/.."

bare=0
if [ "${1:-}" = --bare ]; then
  bare=1
  shift
fi

# cpu_cgroup prints the folder of the CPU cgroup this shell is in, or
# nothing when there is none it can use.
cpu_cgroup() {
  local line path
  line=$(grep -E '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:' /proc/self/cgroup || true)
  if [ -n "$line" ] && [ -d /sys/fs/cgroup/cpu ]; then
    path=${line#*:*:}
    echo "/sys/fs/cgroup/cpu${path%/}"
    return
  fi
  line=$(grep -E '^0::' /proc/self/cgroup || true)
  if [ -n "$line" ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    path=${line#0::}
    echo "/sys/fs/cgroup${path%/}"
  fi
}

# enter makes the cgroup $group under $parent and moves this shell into
# it; it fails, leaving nothing behind, where the cgroup file system is
# read-only (a container's, by default) or refuses the controller.
enter() {
  if [ "$parent" = /sys/fs/cgroup ]; then
    # cgroup v2: the root hands the cpu controller to its children.
    echo +cpu >/sys/fs/cgroup/cgroup.subtree_control || return 1
  fi
  mkdir "$group" || return 1
  echo $$ >"$group/cgroup.procs" || { rmdir "$group"; return 1; }
}

leave() {
  echo $$ >"$parent/cgroup.procs"
  rmdir "$group" 2>/dev/null || echo "webhook-bench.sh: $group still holds processes; remove it with rmdir once they end" >&2
}

if [ "$bare" = 0 ]; then
  parent=$(cpu_cgroup)
  group="$parent/template-verify-bench-$$"
  if [ "$(id -u)" != 0 ]; then
    echo "webhook-bench.sh: not root, so no cgroup of its own; running where it is" >&2
  elif [ -z "$parent" ]; then
    echo "webhook-bench.sh: no CPU cgroup controller found in /proc/self/cgroup; running where it is" >&2
  elif [ "$parent" != /sys/fs/cgroup/cpu ] && [ "$parent" != /sys/fs/cgroup ]; then
    echo "webhook-bench.sh: already in the CPU cgroup $parent, where autogroup does not apply; running there" >&2
  elif ! enter; then
    echo "webhook-bench.sh: could not make or enter $group (above); running where it is" >&2
  else
    trap leave EXIT
    echo "webhook-bench.sh: running in the CPU cgroup $group" >&2
  fi
fi

# Not exec: the trap above removes the cgroup when the benchmark ends.
bash scripts/pg.sh run go test -run XXX -bench WebhookAck -benchtime 1x ./app "$@"
