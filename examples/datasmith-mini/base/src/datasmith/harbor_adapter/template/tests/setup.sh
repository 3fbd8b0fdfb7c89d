#!/usr/bin/env bash
# Prepares /workspace/repo for task {{ task_id }} and records the
# starting-tree commit in /opt/fc_baseline_sha for the restore step.
set -euo pipefail
cd /workspace/repo
git checkout -q '{{ base_commit }}'
# Extra setup commands of the task:
{{ extra_setup_commands }}
git add -A
git -c user.name=setup -c user.email=setup@localhost commit -q --allow-empty -m "starting tree of {{ task_id }}"
git rev-parse HEAD > /opt/fc_baseline_sha
