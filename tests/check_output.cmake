# Runs PROGRAM with ARGS (a ;-list) and compares its stdout byte for byte with GOLDEN.
# On a mismatch prints a unified diff and fails. Used by the golden-output tests in CTest:
#   cmake -DPROGRAM=... -DARGS=... -DGOLDEN=... -P check_output.cmake
# With -DGOLDEN_DIFF=<golden_diff> the comparison is golden_diff's instead, with its options in
# -DDIFF_OPTIONS (space-separated): --rel-tol x lets numbers printed at full precision differ by that
# relative tolerance; --strip-annotations ignores what --annotate adds; --close accepts an output
# close to the golden (another OpenBLAS kernel than the goldens'). Other text must still match exactly. With -DOUTCOME_FILE=path,
# the verdict (exact, tolerance or close, and the OpenBLAS kernel; see golden_diff.cpp) is written there. In a cross-build,
# -DEMULATOR=<command;args> (CMAKE_CROSSCOMPILING_EMULATOR) runs PROGRAM and golden_diff.
# With -DGOLDEN_STOP_BEFORE=<regex> only the golden's lines before the first line matching it are
# expected (a program run with --stop-after against the whole notebook's golden).
execute_process(COMMAND ${EMULATOR} ${PROGRAM} ${ARGS}
                OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} exited with ${code}:\n${errors}")
endif()
if(NOT EXISTS "${GOLDEN}")
  message(FATAL_ERROR "golden file ${GOLDEN} is missing")
endif()
# Where a differing output is kept for a look: one file per test (tests run in parallel).
get_filename_component(name "${GOLDEN}" NAME_WE)
string(MD5 run_id "${PROGRAM};${ARGS};${GOLDEN};${DIFF_OPTIONS}")
string(SUBSTRING "${run_id}" 0 8 run_id)
file(READ "${GOLDEN}" expected)
if(DEFINED GOLDEN_STOP_BEFORE)
  string(REGEX MATCH "(^|\n)${GOLDEN_STOP_BEFORE}" stop "${expected}")
  if(stop STREQUAL "")
    message(FATAL_ERROR "no line of ${GOLDEN} matches GOLDEN_STOP_BEFORE ${GOLDEN_STOP_BEFORE}")
  endif()
  string(FIND "${expected}" "${stop}" at)
  if(stop MATCHES "^\n")
    math(EXPR at "${at} + 1")
  endif()
  string(SUBSTRING "${expected}" 0 ${at} expected)
  set(GOLDEN "${CMAKE_CURRENT_BINARY_DIR}/golden-${name}-${run_id}-prefix.txt")
  file(WRITE "${GOLDEN}" "${expected}")
endif()
set(actual_file "${CMAKE_CURRENT_BINARY_DIR}/actual-${name}-${run_id}.txt")
if(DEFINED GOLDEN_DIFF AND (OUTCOME_FILE OR NOT actual STREQUAL expected))
  file(WRITE "${actual_file}" "${actual}")
  separate_arguments(options UNIX_COMMAND "${DIFF_OPTIONS}")
  execute_process(COMMAND ${EMULATOR} ${GOLDEN_DIFF} ${options} "${GOLDEN}" "${actual_file}"
                  OUTPUT_VARIABLE verdict ERROR_VARIABLE delta RESULT_VARIABLE diff_code)
  if(NOT diff_code EQUAL 0)
    message(FATAL_ERROR "output of ${PROGRAM} ${ARGS} differs from ${GOLDEN} (golden_diff ${DIFF_OPTIONS}):\n${delta}")
  endif()
  set(outcome "${verdict}")
elseif(NOT actual STREQUAL expected)
  file(WRITE "${actual_file}" "${actual}")
  execute_process(COMMAND diff -u "${GOLDEN}" "${actual_file}" OUTPUT_VARIABLE delta)
  message(FATAL_ERROR "output of ${PROGRAM} ${ARGS} differs from ${GOLDEN}:\n${delta}")
endif()
if(OUTCOME_FILE)
  file(WRITE "${OUTCOME_FILE}" "${outcome}")
endif()
