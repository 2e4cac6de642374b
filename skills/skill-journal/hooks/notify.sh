#!/bin/bash
# A second post_execute hook (hooks of one event run in order): prints a one-line summary for the logs.
set -euo pipefail
event="$(cat)"
status="$(printf '%s' "$event" | grep -o '"status":"[a-z_]*"' | head -n 1 | cut -d '"' -f 4 || true)"
echo "skill-journal: a script finished with status ${status:-unknown}"
