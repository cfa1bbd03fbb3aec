#!/usr/bin/env bash
# usage: .ci/expect_student_failures.sh BUILD_DIR   (a build configured with -DLLMFS_EXERCISES=student)
# In the student build every answer is still a TODO, so each exercise's check (CTest label
# "exercise") must fail, and its message must name that exercise and its TODO. Exits 1 otherwise.
set -uo pipefail
build=${1:?usage: $0 BUILD_DIR}
status=0
ids=$("$build/bin/llmfs-exercise" list | awk '$1 ~ /^[0-9]+\.[0-9]+$/ { print $1 }')
[[ -n $ids ]] || { echo "expect_student_failures: llmfs-exercise list printed no exercises" >&2; exit 1; }
for id in $ids; do
  for kernel in mkl default; do
    name="exercise: $id --bernoulli $kernel"
    if out=$(ctest --test-dir "$build" -R "^${name//./\\.}\$" --no-tests=error --output-on-failure 2>&1); then
      echo "FAIL: '$name' passed in the student build, where exercise $id is a TODO" >&2
      status=1
    elif ! grep -qF "exercise $id is not done yet: TODO(exercise $id)" <<<"$out"; then
      echo "FAIL: '$name' failed without naming exercise $id and its TODO:" >&2
      echo "$out" >&2
      status=1
    else
      echo "ok: '$name' fails with: $(grep -oF -m1 "exercise $id is not done yet" <<<"$out")"
    fi
  done
done
exit $status
