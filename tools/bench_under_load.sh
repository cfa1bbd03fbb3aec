#!/usr/bin/env bash
# docs/performance.md's "idle / under load" figures (issue 20): three rounds, each running llmfs (default
# threads, then LLMFS_THREADS=1) and PyTorch (tools/bench_pytorch.py) idle and beside one CPU-bound
# process, for the KV-cache and the no-cache paths, then llmfs-bench mha idle and loaded.
# Report the median of the three rounds for each line. Needs a Release build in build/ and
# /usr/bin/python3 with torch. Takes about 12 minutes on a 2-core machine; run nothing else meanwhile.
#
#   log=$(mktemp) && bash tools/bench_under_load.sh [ROUNDS] [TOKENS] | tee "$log"
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
tokens=${2:-100}
bench=build/bin/llmfs-bench
busy() { /usr/bin/python3 -c 'import time
end = time.time() + 600
while time.time() < end: pass' >/dev/null 2>&1 & echo $!; }
line() { grep -E '^(threads|decode|bound|under load)' | sed 's/^/    /'; }
for round in $(seq "$rounds"); do
  echo "== round $round ($(date -u +%H:%M:%S), load average $(cut -d' ' -f1-3 /proc/loadavg))"
  for cache in --kv-cache ""; do
    echo "-- llmfs ${cache:-no cache}, default threads"; "$bench" generate --tokens "$tokens" $cache --load 1 | line
    echo "-- llmfs ${cache:-no cache}, LLMFS_THREADS=1"; LLMFS_THREADS=1 "$bench" generate --tokens "$tokens" $cache --load 1 | line
    echo "-- PyTorch ${cache:-no cache}"; /usr/bin/python3 tools/bench_pytorch.py generate --tokens "$tokens" $cache --load 1 | sed 's/^/    /'
  done
  echo "-- llmfs-bench mha idle"; "$bench" mha | sed 's/^/    /'
  pid=$(busy); sleep 0.2
  echo "-- llmfs-bench mha beside 1 busy process"; "$bench" mha | sed 's/^/    /'
  echo "-- llmfs-bench mha beside 1 busy process, LLMFS_THREADS=1"; LLMFS_THREADS=1 "$bench" mha | grep fast | sed 's/^/    /'
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
