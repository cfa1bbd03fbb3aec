#!/usr/bin/env bash
# Prints the table of outcomes the tests run on this CPU's own OpenBLAS kernel recorded (the tests
# named "... this CPU's BLAS: ..."; tests/CMakeLists.txt): one line per printed output, "exact", "tolerance" (equal but
# for full-precision scalars within their stated tolerance) or "close" (llmfs-nbcheck's rule),
# with the kernel that computed it, then the counts per kernel.
#   tests/outcomes.sh OUTCOME_DIR [TITLE]
set -euo pipefail
dir=${1:?usage: tests/outcomes.sh OUTCOME_DIR [TITLE]}
title=${2:-printed outputs against the goldens}
if ! compgen -G "$dir/*.txt" > /dev/null; then
  echo "== $title: no outcomes recorded in $dir" >&2
  exit 1
fi
echo "== $title (goldens printed with OpenBLAS's $(sed -n 's/^set(LLMFS_GOLDEN_BLAS_KERNEL \(.*\))$/\1/p' \
  "$(dirname "$0")/../CMakeLists.txt") kernel)"
for f in "$dir"/*.txt; do
  printf '  %-60s %s\n' "$(basename "$f" .txt)" "$(head -n 1 "$f")"
done
# Counts per kernel: the second word of each outcome.
for kernel in $(cut -d' ' -f2 "$dir"/*.txt | sort -u); do
  printf '  kernel %s:' "$kernel"
  for verdict in exact tolerance close differ; do
    printf ' %s %s' "$verdict" "$(grep -l "^$verdict $kernel\b" "$dir"/*.txt | wc -l)"
  done
  echo
done
