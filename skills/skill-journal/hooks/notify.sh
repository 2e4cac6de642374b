#!/bin/bash
# A second post_execute hook (hooks of one event run in order): prints a one-line summary for the logs.
set -euo pipefail
python3 -c 'import json, sys; e = json.load(sys.stdin); r = e.get("result", {}); print(f"{e["skill"]["id"]}: {e.get("script", {}).get("path")} -> {r.get("status")}")'
