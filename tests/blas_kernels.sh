#!/usr/bin/env bash
# Runs CTest's unit label under every OpenBLAS kernel this CPU can run, one after another, and prints
# a table of kernels x (passed, failed). The unit label holds every test that says two code paths
# give the same bits (fast vs teaching, pooled vs one call, cached vs uncached, two layouts): such a
# claim must hold whatever kernel a reader's CPU picks, so each must pass under every kernel. A test
# that compares outputs with PyTorch's printed digits is exact only under the goldens' kernel and
# pins it itself (tests/CMakeLists.txt), so it passes here too.
#   tests/blas_kernels.sh BUILD_DIR [extra ctest arguments, e.g. -R NAME]
# Kernels tried: $LLMFS_BLAS_KERNELS, default the x86-64 ones a reader's CPU picks (AVX-512: SkylakeX,
# Cooperlake; AVX2: Haswell, Zen; AVX: Sandybridge; SSE4.2: Nehalem; SSE3: Prescott). Each is asked
# of OpenBLAS with OPENBLAS_CORETYPE; where the CPU cannot run it (OpenBLAS then names another
# kernel, or the product dies), it is listed as not run. Exit status 1 if any test failed.
set -uo pipefail
build=${1:?usage: tests/blas_kernels.sh BUILD_DIR [ctest arguments]}
shift
probe=$build/tests/blas_kernel_name
if [[ ! -x $probe ]]; then
  echo "blas_kernels.sh: $probe is missing: build the target blas_kernel_name (or unit-and-golden) first" >&2
  exit 2
fi
read -r -a kernels <<< "${LLMFS_BLAS_KERNELS:-SkylakeX Cooperlake Haswell Zen Sandybridge Nehalem Prescott}"
rows=() not_run=() failed_any=0
for k in "${kernels[@]}"; do
  name=$(OPENBLAS_CORETYPE=$k "$probe" 2>/dev/null)
  if [[ $? -ne 0 || ${name,,} != "${k,,}" ]]; then
    not_run+=("$k (${name:-the product died})")
    continue
  fi
  log=$(mktemp)
  OPENBLAS_CORETYPE=$k ctest --test-dir "$build" -L '^unit$' -j2 --output-on-failure "$@" > "$log" 2>&1
  total=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\)/\2/p' "$log")
  failed=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\)/\1/p' "$log")
  if [[ -z $total ]]; then
    echo "== OPENBLAS_CORETYPE=$k: ctest gave no summary" >&2
    cat "$log" >&2
    total=0 failed=1
  elif ((failed > 0)); then
    echo "== OPENBLAS_CORETYPE=$k: $failed failed"
    grep -E '\*\*\*Failed|FAILED|with expansion|^  [^ ]' "$log" | head -n 40
  fi
  rm -f "$log"
  ((failed > 0)) && failed_any=1
  rows+=("$(printf '  %-12s %4d passed %4d failed' "$k" $((total - failed)) "$failed")")
done
echo "== the unit label under each OpenBLAS kernel this CPU can run (its own pick: $("$probe"))"
printf '%s\n' "${rows[@]}"
((${#not_run[@]})) && printf '  not run here: %s\n' "${not_run[*]}"
if ((${#rows[@]} == 0)); then
  echo "blas_kernels.sh: this CPU could run none of: ${kernels[*]}" >&2
  exit 1
fi
exit $failed_any
