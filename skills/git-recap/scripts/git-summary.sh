#!/bin/bash
# Prints the last N commits (default 20) of $REPO_DIR: hash, date, author, subject. Read-only.
set -euo pipefail
count="${1:-20}"
case "$count" in ''|*[!0-9]*) echo "count must be a number" >&2; exit 2 ;; esac
repo="${REPO_DIR:-.}"
if ! git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  echo "$repo is not a git repository" >&2
  exit 1
fi
git -C "$repo" log -n "$count" --date=short --pretty='format:%h %ad %an: %s'
echo
