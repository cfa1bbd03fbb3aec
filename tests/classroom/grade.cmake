# `llmfs-exercise grade` on four student trees for exercise 3.2, each made from the student version
# (SOURCE's chapters/exercises/student/) and the goldens, as a hand-out holds them:
#   right         the answer;
#   wrong         a wrong answer;
#   wrong-golden  the same wrong answer, with its goldens overwritten by its own output (which made
#                 a student's own ctest pass): it must get exactly the wrong tree's verdicts;
#   broken        an answer that does not compile.
# Each tree is built in a build directory of its own, against the instructor's library (TOOL's
# build), and judged against the instructor's goldens.
#   cmake -DSOURCE=<source tree> -DTOOL=<llmfs-exercise> -DWORK=<dir> -P grade.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${WORK})
set(todo "    exercise_todo(\"3.2\", \"return the d_out each of the 2 heads needs for 2-dimensional context vectors\");")
foreach(student right wrong wrong-golden broken)
  file(COPY ${SOURCE}/chapters/exercises/student DESTINATION ${WORK}/${student}/chapters/exercises)
  file(COPY ${SOURCE}/data/golden DESTINATION ${WORK}/${student}/data)
endforeach()
replace_in(${WORK}/right/chapters/exercises/student/exercise_3_2.cpp "${todo}" "    return 1;")
replace_in(${WORK}/wrong/chapters/exercises/student/exercise_3_2.cpp "${todo}" "    return 3;")
replace_in(${WORK}/wrong-golden/chapters/exercises/student/exercise_3_2.cpp "${todo}" "    return 3;")
replace_in(${WORK}/broken/chapters/exercises/student/exercise_3_2.cpp "${todo}" "    return 1")
foreach(kernel mkl default)  # the wrong answer's own output, as the student's golden
  file(WRITE ${WORK}/wrong-golden/data/golden/${kernel}/ch03_exercise_3_2.txt "tensor([[[ 0.3326,  0.5659, -0.3132]]])\n")
endforeach()
execute_process(COMMAND ${TOOL} grade --json --exercise 3.2 ${WORK}/right ${WORK}/wrong ${WORK}/wrong-golden ${WORK}/broken
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "grade failed (${code}):\n${out}\n${err}")
endif()
foreach(expected "right:right" "wrong:differs" "wrong-golden:differs" "broken:build-error")
  string(REPLACE ":" ";" pair "${expected}")
  list(GET pair 0 student)
  list(GET pair 1 verdict)
  string(JSON n LENGTH "${out}")
  math(EXPR last "${n} - 1")
  set(found "")
  foreach(i RANGE ${last})
    string(JSON s GET "${out}" ${i} student)
    string(JSON v GET "${out}" ${i} verdict)
    string(JSON e GET "${out}" ${i} exercise)
    if(s STREQUAL "${WORK}/${student}" AND e STREQUAL "3.2")
      set(found "${v}")
    endif()
  endforeach()
  if(NOT found STREQUAL verdict)
    message(FATAL_ERROR "grade: ${student} got '${found}' for 3.2, not '${verdict}':\n${out}")
  endif()
  message(STATUS "ok: ${student}: ${verdict}")
endforeach()
