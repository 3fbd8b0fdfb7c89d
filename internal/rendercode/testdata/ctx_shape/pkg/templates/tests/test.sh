#!/usr/bin/env bash
set -euo pipefail
{% include "common.sh" %}
echo "task {{ task }}"
{%- if run_pytest %}
python -m pytest -q
{%- else %}
echo "no pytest"
{%- endif %}
{% if rounds is not none %}ROUNDS={{ rounds }}{% endif %}
