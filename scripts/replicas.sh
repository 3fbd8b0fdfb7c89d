#!/usr/bin/env bash
# The replica demonstration: PostgreSQL (scripts/pg.sh), a fake GitHub and
# 3 App servers on one database; 300 signed deliveries for 30 pull-request
# heads round-robin over the replicas, with duplicates and superseding
# pushes; SIGKILL of one replica in the middle of the runs and its restart
# (scripts/replicademo). Prints one line such as
#
#   heads 30, verified 30, comments 30, lost 0, run twice 0, p99 ack N ms
#
# and exits 0 only when every head was verified once with one comment, no
# delivery was lost and every check run the App opened (a superseded head's
# too) is concluded. Options go to replicademo (-heads, -deliveries, -pace,
# -wait, -keep: keep the replicas' logs).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/replicademo" ./scripts/replicademo
bash scripts/pg.sh run bash -c '"$0" -database-url "$TEMPLATE_VERIFY_TEST_DATABASE_URL" "$@"' "$bin/replicademo" "$@"
