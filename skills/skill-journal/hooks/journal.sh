#!/bin/bash
# Reads the hook event (JSON) on stdin and prints it as one line: skillbot keeps a hook's output in the audit
# trail, so `skillbot audit --chat ID` reads as this skill's journal. Sandboxed, a hook can write no host file.
set -euo pipefail
event="$(cat)"
printf '%s\n' "$event" | tr -d '\n'
printf '\n'
