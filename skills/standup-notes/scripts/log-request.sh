#!/bin/bash
# Side effect only (inject: silent): appends a line to $STANDUP_LOG when the world's config sets it.
set -euo pipefail
if [ -n "${STANDUP_LOG:-}" ]; then
  printf '%s stand-up drafted\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$STANDUP_LOG"
fi
