# Builds the student hand-out in HANDOUT (written by `llmfs-exercise handout`) as a student would:
# the README's configure command and the exercises target.
#   cmake -DHANDOUT=<dir> -P handout_build.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -S ${HANDOUT} -B ${HANDOUT}/build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the hand-out does not configure:\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${HANDOUT}/build -j2 --target exercises ch03_causal_attention
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the hand-out does not build:\n${out}\n${err}")
endif()
if(NOT EXISTS ${HANDOUT}/build/bin/ch03_exercise_3_2 OR NOT EXISTS ${HANDOUT}/build/bin/llmfs-exercise)
  message(FATAL_ERROR "the hand-out's build has no ch03_exercise_3_2 or llmfs-exercise")
endif()
