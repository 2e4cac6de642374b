#!/bin/sh
# Disk, memory and load of this machine. Read-only: it only reads df and /proc.
set -eu

echo "## Filesystems (fullest first, ! = 85% or more)"
{ df -P -h -x tmpfs -x devtmpfs -x squashfs 2>/dev/null || df -P -h; } | tail -n +2 | sort -k5 -r -n | awk '{
  use = $5; sub("%", "", use);
  mark = (use + 0 >= 85) ? "!" : " ";
  printf "%s %5s used of %6s  %s\n", mark, $5, $2, $6
}'

echo
echo "## Memory"
if [ -r /proc/meminfo ]; then
  awk '/^MemTotal:/ {t=$2} /^MemAvailable:/ {a=$2} END {
    printf "total %.1f GiB, available %.1f GiB, used %d%%\n", t/1048576, a/1048576, (t - a) * 100 / t
  }' /proc/meminfo
else
  echo "unknown (no /proc/meminfo)"
fi

echo
echo "## Load"
if [ -r /proc/loadavg ]; then
  read -r one five fifteen _rest < /proc/loadavg
  echo "1 min $one, 5 min $five, 15 min $fifteen, CPUs $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')"
else
  uptime
fi
