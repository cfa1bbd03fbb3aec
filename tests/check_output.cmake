# Runs PROGRAM with ARGS (a ;-list) and compares its stdout byte for byte with GOLDEN.
# On a mismatch prints a unified diff and fails. Used by the golden-output tests in CTest:
#   cmake -DPROGRAM=... -DARGS=... -DGOLDEN=... -P check_output.cmake
# With -DGOLDEN_DIFF=<golden_diff> the comparison is golden_diff's instead, with its options in
# -DDIFF_OPTIONS (space-separated): --rel-tol x lets numbers printed at full precision differ by that
# relative tolerance; --strip-annotations ignores what --annotate adds; --close accepts an output
# close to the golden (non-x86 CPUs). Other text must still match exactly. With -DOUTCOME_FILE=path,
# the verdict (exact, tolerance or close; see golden_diff.cpp) is written there. In a cross-build,
# -DEMULATOR=<command;args> (CMAKE_CROSSCOMPILING_EMULATOR) runs PROGRAM and golden_diff.
execute_process(COMMAND ${EMULATOR} ${PROGRAM} ${ARGS}
                OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} exited with ${code}:\n${errors}")
endif()
if(NOT EXISTS "${GOLDEN}")
  message(FATAL_ERROR "golden file ${GOLDEN} is missing")
endif()
file(READ "${GOLDEN}" expected)
if(DEFINED GOLDEN_DIFF AND NOT actual STREQUAL expected)
  get_filename_component(name "${GOLDEN}" NAME)
  set(actual_file "${CMAKE_CURRENT_BINARY_DIR}/actual-${name}")
  file(WRITE "${actual_file}" "${actual}")
  separate_arguments(options UNIX_COMMAND "${DIFF_OPTIONS}")
  execute_process(COMMAND ${EMULATOR} ${GOLDEN_DIFF} ${options} "${GOLDEN}" "${actual_file}"
                  OUTPUT_VARIABLE verdict ERROR_VARIABLE delta RESULT_VARIABLE diff_code)
  if(NOT diff_code EQUAL 0)
    message(FATAL_ERROR "output of ${PROGRAM} ${ARGS} differs from ${GOLDEN} (golden_diff ${DIFF_OPTIONS}):\n${delta}")
  endif()
  set(outcome "${verdict}")
elseif(NOT actual STREQUAL expected)
  get_filename_component(name "${GOLDEN}" NAME)
  set(actual_file "${CMAKE_CURRENT_BINARY_DIR}/actual-${name}")
  file(WRITE "${actual_file}" "${actual}")
  execute_process(COMMAND diff -u "${GOLDEN}" "${actual_file}" OUTPUT_VARIABLE delta)
  message(FATAL_ERROR "output of ${PROGRAM} ${ARGS} differs from ${GOLDEN}:\n${delta}")
endif()
if(OUTCOME_FILE)
  if(NOT DEFINED outcome)
    set(outcome "exact\n")
  endif()
  file(WRITE "${OUTCOME_FILE}" "${outcome}")
endif()
