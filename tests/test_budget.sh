#!/usr/bin/env bash
# Usage: tests/test_budget.sh BUILD_DIR [BUDGET_SECONDS]
#
# Fails when the README's test command (every test outside the label "long") costs more than its
# budget: the sum of each test's time, in seconds of one process, as ctest last measured it
# (BUILD_DIR/Testing/Temporary/CTestCostData.txt, which every ctest run updates). Run it after
# `ctest -LE long`, as .ci/run does; docs/testing.md says where the budget comes from and what to do
# when a new chapter's tests go over it (make them smaller, or label the slow ones "long").
#
# Also fails when a test of the default label has never run (no time measured): the sum would lie.
# A test that ran and was skipped (a missing optional tool: PyTorch, say) costs nothing, and is named.
# Prints the total and the ten most expensive tests of the label, so the bill is read, not guessed.
set -euo pipefail
build=${1:?usage: tests/test_budget.sh BUILD_DIR [BUDGET_SECONDS]}
budget=${2:-420}
cost="$build/Testing/Temporary/CTestCostData.txt"
if [[ ! -r "$cost" ]]; then
  echo "test_budget: $cost not found: run ctest --test-dir $build -LE long first" >&2
  exit 2
fi
names=$(mktemp)
trap 'rm -f "$names"' EXIT
ctest --test-dir "$build" -N -LE long | sed -n 's/^ *Test *#[0-9]*: //p' > "$names"
if [[ ! -s "$names" ]]; then
  echo "test_budget: ctest lists no test outside the label long in $build" >&2
  exit 2
fi
# CTestCostData.txt: one line per test, "NAME RUNS SECONDS" (NAME may hold spaces), then a line
# "---" and the names of the tests that failed last.
awk -v budget="$budget" '
  FNR == NR { want[$0] = 1; n++; next }
  /^---$/ { done = 1 }
  done { next }
  {
    runs = $(NF - 1); secs = $NF; name = $0
    sub(/ [^ ]+ [^ ]+$/, "", name)
    # ctest writes "NAME 0 0" for a test it ran and that was skipped (SKIP_RETURN_CODE).
    if (name in want && runs > 0) { cost[name] = secs; total += secs; seen++ }
    else if (name in want && runs == 0 && secs == 0 && !(name in skipped)) { skipped[name] = 1; seen++ }
  }
  END {
    if (seen < n) {
      missing = 0
      for (t in want) if (!(t in cost) && !(t in skipped)) { if (missing++ < 5) print "test_budget: never measured: " t > "/dev/stderr" }
      printf "test_budget: %d of the %d tests outside the label long have no measured time: run them first\n", missing, n > "/dev/stderr"
      exit 2
    }
    for (t in skipped) print "test_budget: skipped in the last run, no time: " t
    for (t in cost) printf "%10.1f  %s\n", cost[t], t | "sort -rn | head -10"
    close("sort -rn | head -10")
    printf "test_budget: %d tests outside the label long cost %.0f s of one process (budget %d s)\n", n, total, budget
    if (total > budget) {
      print "test_budget: over budget: make the new tests smaller, or label the slow ones long (docs/testing.md)" > "/dev/stderr"
      exit 1
    }
  }' "$names" "$cost"
