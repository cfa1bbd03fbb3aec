# Runs PROGRAM with ARGS (a ;-list) and compares its stdout byte for byte with GOLDEN.
# On a mismatch prints a unified diff and fails. Used by the golden-output tests in CTest:
#   cmake -DPROGRAM=... -DARGS=... -DGOLDEN=... -P check_output.cmake
# With -DREL_TOL=x -DGOLDEN_DIFF=<golden_diff>, numbers printed at full precision may differ by
# that relative tolerance (all other text must still match exactly).
execute_process(COMMAND ${PROGRAM} ${ARGS}
                OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} exited with ${code}:\n${errors}")
endif()
if(NOT EXISTS "${GOLDEN}")
  message(FATAL_ERROR "golden file ${GOLDEN} is missing")
endif()
file(READ "${GOLDEN}" expected)
if(DEFINED REL_TOL AND NOT actual STREQUAL expected)
  get_filename_component(name "${GOLDEN}" NAME)
  set(actual_file "${CMAKE_CURRENT_BINARY_DIR}/actual-${name}")
  file(WRITE "${actual_file}" "${actual}")
  execute_process(COMMAND ${GOLDEN_DIFF} --rel-tol ${REL_TOL} "${GOLDEN}" "${actual_file}"
                  ERROR_VARIABLE delta RESULT_VARIABLE diff_code)
  if(NOT diff_code EQUAL 0)
    message(FATAL_ERROR "output of ${PROGRAM} ${ARGS} differs from ${GOLDEN} beyond relative tolerance ${REL_TOL}:\n${delta}")
  endif()
elseif(NOT actual STREQUAL expected)
  get_filename_component(name "${GOLDEN}" NAME)
  set(actual_file "${CMAKE_CURRENT_BINARY_DIR}/actual-${name}")
  file(WRITE "${actual_file}" "${actual}")
  execute_process(COMMAND diff -u "${GOLDEN}" "${actual_file}" OUTPUT_VARIABLE delta)
  message(FATAL_ERROR "output of ${PROGRAM} ${ARGS} differs from ${GOLDEN}:\n${delta}")
endif()
