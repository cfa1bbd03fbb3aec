# llmfs-finetune-instruction end to end, in a fresh SCRATCH folder as its working directory: its
# standard output must be GOLDEN byte for byte, the responses it saves RESPONSES byte for byte, and
# the folder must hold the script's three files and nothing else (no .partial left).
#   cmake -DPROGRAM=... -DARGS=a;b -DGOLDEN=... -DRESPONSES=... -DSCRATCH=dir -P check_finetune.cmake
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
execute_process(COMMAND ${EMULATOR} ${PROGRAM} ${ARGS} WORKING_DIRECTORY ${SCRATCH}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} exited with ${code}:\n${err}")
endif()
file(READ ${GOLDEN} expected)
if(NOT out STREQUAL expected)
  file(WRITE ${SCRATCH}.stdout.txt "${out}")
  message(FATAL_ERROR "the output differs from ${GOLDEN}: see ${SCRATCH}.stdout.txt\n")
endif()
if(NOT err MATCHES "Training completed in [0-9]+\\.[0-9][0-9] minutes\\.\n")
  message(FATAL_ERROR "stderr lacks the script's time line:\n${err}")
endif()
file(GLOB left RELATIVE ${SCRATCH} ${SCRATCH}/*)
list(SORT left)
if(NOT left STREQUAL "Smalltestmodel-sft-standalone.pth;instruction-data-with-response-standalone.json;loss-plot-standalone.pdf")
  message(FATAL_ERROR "expected the script's three files in ${SCRATCH}, found: ${left}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${SCRATCH}/instruction-data-with-response-standalone.json ${RESPONSES}
                RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "${SCRATCH}/instruction-data-with-response-standalone.json differs from ${RESPONSES}")
endif()
file(REMOVE_RECURSE ${SCRATCH})
