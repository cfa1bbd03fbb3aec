# Can this machine run the OpenBLAS kernel the goldens were printed with (LLMFS_GOLDEN_BLAS_KERNEL)?
# Sets, for the unit tests (common/) and the golden tests (tests/):
#   LLMFS_GOLDEN_KERNEL_RUNS  ON where the CPU and OpenBLAS can run it (cmake/blas_kernel_probe.cpp);
#                             OFF when cross-compiling
#   LLMFS_GOLDEN_ENV          the test environment that selects it: OPENBLAS_CORETYPE=<kernel>
#   LLMFS_OUTCOME_DIR         where tests run on this CPU's own kernel record exact/tolerance/close
set(LLMFS_OUTCOME_DIR ${CMAKE_BINARY_DIR}/outcomes)
if(CMAKE_CROSSCOMPILING)
  set(LLMFS_GOLDEN_KERNEL_RUNS OFF)
  set(native_kernel "the target CPU's")
else()
  unset(blas_probe_run CACHE)
  try_run(blas_probe_run blas_probe_compiled ${CMAKE_BINARY_DIR}/blas_kernel_probe
          ${CMAKE_CURRENT_LIST_DIR}/blas_kernel_probe.cpp
          CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${OpenBLAS_INCLUDE_DIRS}" LINK_LIBRARIES ${OpenBLAS_LIBRARIES}
          COMPILE_OUTPUT_VARIABLE blas_probe_log RUN_OUTPUT_VARIABLE blas_probe_out ARGS ${LLMFS_GOLDEN_BLAS_KERNEL})
  if(NOT blas_probe_compiled OR NOT blas_probe_run EQUAL 0)
    message(FATAL_ERROR "cannot build or run cmake/blas_kernel_probe.cpp against OpenBLAS:\n${blas_probe_log}")
  endif()
  list(GET blas_probe_out 0 native_kernel)
  list(GET blas_probe_out 1 LLMFS_GOLDEN_KERNEL_RUNS)
endif()
if(LLMFS_GOLDEN_KERNEL_RUNS)
  message(STATUS "OpenBLAS kernel: ${native_kernel}; golden tests run exactly under ${LLMFS_GOLDEN_BLAS_KERNEL} "
                 "(the goldens' kernel) and close-or-exact under ${native_kernel}")
else()
  message(STATUS "OpenBLAS kernel: ${native_kernel}; this machine cannot run the goldens' ${LLMFS_GOLDEN_BLAS_KERNEL} "
                 "kernel, so golden tests accept close outputs (recorded in outcomes/)")
endif()
set(LLMFS_GOLDEN_ENV OPENBLAS_CORETYPE=${LLMFS_GOLDEN_BLAS_KERNEL})
