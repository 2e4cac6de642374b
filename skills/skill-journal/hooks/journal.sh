#!/bin/bash
# Reads the hook event (JSON) on stdin and appends it as one line to $JOURNAL_FILE, when set.
set -euo pipefail
event="$(cat)"
if [ -n "${JOURNAL_FILE:-}" ]; then
  printf '%s\n' "$event" | tr -d '\n' >> "$JOURNAL_FILE"
  printf '\n' >> "$JOURNAL_FILE"
fi
