# Runs PROGRAM with ARGS (stdin from INPUT_FILE) and checks its exit code (EXPECTED_CODE) and that stderr matches
# STDERR_REGEX (if given) — for the bad-input behaviour every program promises.
# INPUT_FILE (optional) becomes its standard input; without it, stdin is empty (/dev/null).
# In a cross-build, -DEMULATOR=<command;args> (CMAKE_CROSSCOMPILING_EMULATOR) runs PROGRAM.
if(NOT DEFINED INPUT_FILE)
  set(INPUT_FILE /dev/null)
endif()
execute_process(COMMAND ${EMULATOR} ${PROGRAM} ${ARGS} INPUT_FILE ${INPUT_FILE} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT code STREQUAL "${EXPECTED_CODE}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: expected exit code ${EXPECTED_CODE}, got ${code}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED STDERR_REGEX AND NOT err MATCHES "${STDERR_REGEX}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: stderr does not match '${STDERR_REGEX}':\n${err}")
endif()
if(DEFINED STDOUT_REGEX AND NOT out MATCHES "${STDOUT_REGEX}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: stdout does not match '${STDOUT_REGEX}':\n${out}")
endif()
