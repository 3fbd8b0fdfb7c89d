#!/usr/bin/env bash
# The replica demonstration: PostgreSQL (scripts/pg.sh), a fake GitHub and
# 3 App servers with serve's defaults on one database; 300 signed
# deliveries for 30 pull-request heads round-robin over the replicas, with
# duplicates and superseding pushes; a SIGKILL of a replica while the
# deliveries are admitted, one while a verification runs and one while a
# verification is published, each replica started again on its data
# folder; PostgreSQL stopped for 10 s in the middle and started again
# (pg.sh restart). Counts from the fake GitHub's record, per head
# (scripts/replicademo), and prints one line such as
#
#   heads 30, verified once 30, second check-run sets 0, second gates 0, second comments 0, left open 0, false failures 0, lost 0
#
# It exits 0 only when every final head was verified once with one
# check-run set, one gate and one comment, and nothing is left open,
# failed by a fault or lost. Options go to replicademo (-heads,
# -deliveries, -pace, -outage, -wait, -keep: keep the replicas' logs).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/replicademo" ./scripts/replicademo
bash scripts/pg.sh run bash -c '"$0" -database-url "$TEMPLATE_VERIFY_TEST_DATABASE_URL" -pg-dir "$PG_DIR" "$@"' "$bin/replicademo" "$@"
