# `llmfs-exercise grade` runs students' code in a box (common/app/sandbox.hpp): three student trees
# for exercise 3.2, each made from the student version (SOURCE's chapters/exercises/student/):
#   spinner   an answer that never returns: stopped by the time limit, runtime-error, grading goes on;
#   reader    an answer that reads a planted ~/.ssh/id_rsa outside its tree: with bubblewrap it finds
#             no such file (runtime-error, "forbidden access");
#   includer  an answer that #includes that file at compile time (its text, or the compiler's
#             errors quoting it, would reach the student): with bubblewrap the student's build cannot
#             see it (build-error).
# Without a working bubblewrap (the rlimits box) only the spinner's verdict is sure, and the note
# on stderr must say what that box cannot stop. The spinner is graded again in the rlimits box,
# forced with LLMFS_SANDBOX=rlimits. The sandbox's unit tests (sandbox_test) cover memory and file size.
#   cmake -DSOURCE=<source tree> -DTOOL=<llmfs-exercise> -DWORK=<dir> -P grade_box.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${WORK})
set(secret ${WORK}/outside/.ssh/id_rsa)
file(WRITE ${secret} "1\n")  # a line of length 1: read, it would give the right answer
set(todo "    exercise_todo(\"3.2\", \"return the d_out each of the num_heads heads needs for context vectors of context_dim dimensions\");")
set(header "#include \"llmfs/app/exercise.hpp\"")
foreach(student spinner reader includer)
  file(COPY ${SOURCE}/chapters/exercises/student DESTINATION ${WORK}/${student}/chapters/exercises)
endforeach()
replace_in(${WORK}/spinner/chapters/exercises/student/exercise_3_2.cpp "${todo}" "    for (volatile unsigned long i = 0;; i = i + 1) {\n    }")
replace_in(${WORK}/reader/chapters/exercises/student/exercise_3_2.cpp "${header}" "${header}\n#include <fstream>")
replace_in(${WORK}/reader/chapters/exercises/student/exercise_3_2.cpp "${todo}"
           "    std::ifstream key(\"${secret}\");\n    std::string line;\n    if (!std::getline(key, line)) throw std::runtime_error(\"cannot read ${secret}\");\n    return line.size();")
replace_in(${WORK}/includer/chapters/exercises/student/exercise_3_2.cpp "${todo}" "    return\n#include \"${secret}\"\n        ;")

function(verdict_of json student expected)
  grade_field("${json}" "${WORK}/${student}" verdict found)
  if(NOT found STREQUAL expected)
    message(FATAL_ERROR "grade: ${student} got '${found}' for 3.2, not '${expected}':\n${json}")
  endif()
  message(STATUS "ok: ${student}: ${expected}")
endfunction()

execute_process(COMMAND ${TOOL} grade --json --time-limit 3 --exercise 3.2 ${WORK}/spinner ${WORK}/reader ${WORK}/includer
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "grade failed (${code}):\n${out}\n${err}")
endif()
if(NOT err MATCHES "sandbox: (bubblewrap|rlimits only)")
  message(FATAL_ERROR "grade does not say which sandbox ran:\n${err}")
endif()
verdict_of("${out}" spinner runtime-error)
if(NOT err MATCHES "exercise 3.2: stopped by the sandbox: time limit \\(3 s wall\\)")
  message(FATAL_ERROR "grade does not say why the spinner was stopped:\n${err}")
endif()
if(err MATCHES "sandbox: bubblewrap")
  verdict_of("${out}" reader runtime-error)
  if(NOT err MATCHES "exercise 3.2: stopped by the sandbox: forbidden access \\(${secret} is outside its box\\)")
    message(FATAL_ERROR "grade does not say why the reader was stopped:\n${err}")
  endif()
  verdict_of("${out}" includer build-error)
else()
  message(STATUS "no working bubblewrap here: the reader and the includer are not boxed")
  if(NOT err MATCHES "can read and write every file this user may")
    message(FATAL_ERROR "the rlimits box does not say what it cannot stop:\n${err}")
  endif()
endif()

# The fallback box, forced: the spinner is stopped there too.
execute_process(COMMAND ${CMAKE_COMMAND} -E env LLMFS_SANDBOX=rlimits ${TOOL} grade --json --time-limit 3 --exercise 3.2 ${WORK}/spinner
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0 OR NOT err MATCHES "sandbox: rlimits only")
  message(FATAL_ERROR "grade in the rlimits box failed (${code}):\n${out}\n${err}")
endif()
verdict_of("${out}" spinner runtime-error)
