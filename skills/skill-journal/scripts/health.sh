#!/bin/bash
# A stand-in health check: "ok" for known services, a failure (which fires the on_error hook) otherwise.
set -euo pipefail
service="${1:-api}"
case "$service" in
  api|web|worker) echo "$service: ok" ;;
  *) echo "unknown service: $service" >&2; exit 3 ;;
esac
