# One case of a program named after a book script (ch04_gqa, ch04_memory_estimator_swa, ...) against
# what the script itself printed for the same arguments (data/golden/scripts/, made by
# tests/goldens/make_script_goldens.py):
#   -DPROGRAM=... -DARGS=a;b -DEXPECTED_CODE=n -DGOLDEN=<stdout, byte for byte>
#   [-DSTDERR_GOLDEN=<stderr, byte for byte>]   argparse's usage and error under the program's own name
#   [-DSTDERR_LAST=<line>]                       the last line of stderr: an argparse error recorded
#                                                under the script's file name (only the message is
#                                                compared: the usage wraps by the name), or the
#                                                exception a Python traceback ends with
# In a cross-build, -DEMULATOR=<command;args> (CMAKE_CROSSCOMPILING_EMULATOR) runs PROGRAM.
execute_process(COMMAND ${EMULATOR} ${PROGRAM} ${ARGS} INPUT_FILE /dev/null
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
set(what "${PROGRAM} ${ARGS}")
if(NOT code STREQUAL "${EXPECTED_CODE}")
  message(FATAL_ERROR "${what}: expected exit code ${EXPECTED_CODE}, got ${code}\nstdout:\n${out}\nstderr:\n${err}")
endif()
file(READ "${GOLDEN}" expected)
if(NOT out STREQUAL expected)
  string(MD5 run_id "${what}")
  set(actual_file "${CMAKE_CURRENT_BINARY_DIR}/actual-script-${run_id}.txt")
  file(WRITE "${actual_file}" "${out}")
  execute_process(COMMAND diff -u "${GOLDEN}" "${actual_file}" OUTPUT_VARIABLE delta)
  message(FATAL_ERROR "${what}: stdout differs from ${GOLDEN}:\n${delta}")
endif()
if(DEFINED STDERR_GOLDEN)
  file(READ "${STDERR_GOLDEN}" expected_err)
  if(NOT err STREQUAL expected_err)
    message(FATAL_ERROR "${what}: stderr differs from ${STDERR_GOLDEN}:\n--- expected\n${expected_err}--- got\n${err}")
  endif()
endif()
if(DEFINED STDERR_LAST)
  string(REGEX REPLACE "\n$" "" trimmed "${err}")
  string(FIND "${trimmed}" "\n" newline REVERSE)
  math(EXPR start "${newline} + 1")
  string(SUBSTRING "${trimmed}" ${start} -1 last)
  if(NOT last STREQUAL STDERR_LAST)
    message(FATAL_ERROR "${what}: the last line of stderr should be\n  ${STDERR_LAST}\nbut stderr is:\n${err}")
  endif()
endif()
