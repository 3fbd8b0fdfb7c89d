#!/usr/bin/env bash
# Starts the system's PostgreSQL (the newest major version under
# /usr/lib/postgresql, or PG_BIN) in a temporary folder: initdb there, a unix
# socket there, no TCP port, as the current user (as root: as nobody, since
# postgres refuses to run as root). Three ways to use it:
#
#   scripts/pg.sh                 start, print the URL, wait; stop on exit (Ctrl-C)
#   scripts/pg.sh run CMD ARGS…   start, run CMD with TEMPLATE_VERIFY_TEST_DATABASE_URL
#                                 set to the URL, stop; exits with CMD's status
#   eval "$(scripts/pg.sh start)" start in the background; sets PG_URL and PG_DIR
#   scripts/pg.sh stop "$PG_DIR"  stop it and remove the folder
#   scripts/pg.sh restart DIR [SECONDS]
#                                 stop it (fast: clients are disconnected), stay
#                                 down SECONDS (default 10), start it again on
#                                 the same data folder; an outage for
#                                 scripts/replicas.sh
#
# run also sets PG_DIR for CMD, the folder that restart takes.
# The URL's user is the cluster's superuser, so tests may create a database
# each. Durability is off (fsync, synchronous_commit): the data is thrown away.
set -euo pipefail

# newest_bin prints the bin folder of the newest PostgreSQL major version
# under /usr/lib/postgresql (Debian's and Ubuntu's layout), or nothing.
newest_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/postgres" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ] && echo "$d"
  done | sort -V | tail -n 1
}
bin=${PG_BIN:-$(newest_bin)}
if [ -z "$bin" ] || [ ! -x "$bin/postgres" ]; then
  echo "pg.sh: no PostgreSQL in ${bin:-/usr/lib/postgresql/*/bin}; install it: apt-get install -y --no-install-recommends postgresql (scripts/setup.sh --tests does as root)" >&2
  exit 1
fi

as_user=()
user=$(id -un)
if [ "$(id -u)" = 0 ]; then
  user=nobody
  as_user=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --)
fi

# as_pg runs a PostgreSQL program as the cluster's user, from /: nobody may
# not enter the caller's folder (a mktemp -d one is mode 700), and pg_ctl
# then prints "could not change directory".
as_pg() {
  (cd / && "${as_user[@]}" "$@")
}

start() {
  # /tmp, not TMPDIR: a unix socket path must stay under 108 bytes, and
  # nobody must be able to reach the folder.
  dir=$(mktemp -d /tmp/tv-pg-XXXXXX)
  chmod 755 "$dir"
  if [ "$user" = nobody ]; then chown nobody "$dir"; fi
  as_pg "$bin/initdb" -D "$dir/data" -U "$user" --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
  up "$dir" || { rm -rf "$dir"; exit 1; }
  url="postgres:///postgres?host=$dir&user=$user&sslmode=disable"
}

# up starts the cluster of folder $1 (made by start) and waits until it
# takes connections.
up() {
  local d=$1
  if ! as_pg "$bin/pg_ctl" -D "$d/data" -l "$d/postgres.log" -w -t 60 \
    -o "-k $d -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null; then
    cat "$d/postgres.log" >&2
    return 1
  fi
}

stop() {
  local d=$1
  if [ -d "$d/data" ]; then
    as_pg "$bin/pg_ctl" -D "$d/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$d"
}

case "${1:-}" in
start)
  start
  printf 'PG_URL=%q\nPG_DIR=%q\n' "$url" "$dir"
  ;;
stop)
  stop "${2:?pg.sh stop DIR}"
  ;;
restart)
  d=${2:?pg.sh restart DIR [SECONDS]}
  [ -d "$d/data" ] || { echo "pg.sh restart: no cluster in $d" >&2; exit 1; }
  as_pg "$bin/pg_ctl" -D "$d/data" -m fast -w stop >/dev/null
  sleep "${3:-10}"
  up "$d"
  ;;
run)
  shift
  start
  trap 'stop "$dir"' EXIT
  TEMPLATE_VERIFY_TEST_DATABASE_URL=$url PG_DIR=$dir "$@"
  ;;
"")
  start
  trap 'stop "$dir"' EXIT
  trap 'exit 0' INT TERM
  echo "$url"
  while :; do sleep 3600 & wait $!; done
  ;;
*)
  echo "usage: pg.sh [start | stop DIR | restart DIR [SECONDS] | run CMD ARGS…]" >&2
  exit 2
  ;;
esac
