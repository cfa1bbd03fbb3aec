# `llmfs-exercise grade` on five student trees for exercise 3.3 (issue 51's classroom), each made
# from the student version (SOURCE's chapters/exercises/student/) and the goldens, as a hand-out
# holds them:
#   right         the answer;                                                    -> right
#   wrong-golden  a wrong count (out_proj left out), with its goldens overwritten by its own output
#                 (which made a student's own ctest pass);                       -> differs
#   broken        an answer that does not compile;                               -> build-error
#   hard-coded    `return 2360064;` in count_parameters: right on the book's case only,
#                 wrong on grade's hidden variants (attention modules of other sizes);
#                                                                                -> differs-on-variants
#   reads-golden  count_parameters prints the instructor's golden, found through LLMFS_DATA_DIR
#                 (something wrong when it cannot read it): grade's data has no golden/;
#                                                                                -> differs
# Each tree is built in a build directory of its own, against the instructor's library (TOOL's
# build), and judged against the instructor's goldens, then on the variants, whose expected outputs
# TOOL's solution programs print at grading time. The JSON's details and --summary's pages say why.
#   cmake -DSOURCE=<source tree> -DTOOL=<llmfs-exercise> -DWORK=<dir> -P grade.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${WORK})
set(build_todo "    exercise_todo(\"3.3\", \"build a MultiHeadAttention with GPT-2 small's sizes (768 in and out, context 1024, 12 heads, dropout 0.0)\");")
set(count_todo "    exercise_todo(\"3.3\", \"add up the parameters of the four Linear layers (Linear::num_parameters)\");")
set(build_answer "    return MultiHeadAttention(gen, 768, 768, 1024, 0.0, 12);")
set(three "mha.W_query.num_parameters() + mha.W_key.num_parameters() + mha.W_value.num_parameters()")
set(students right wrong-golden broken hard-coded reads-golden)
foreach(student ${students})
  file(COPY ${SOURCE}/chapters/exercises/student DESTINATION ${WORK}/${student}/chapters/exercises)
  file(COPY ${SOURCE}/data/golden DESTINATION ${WORK}/${student}/data)
  set(file ${WORK}/${student}/chapters/exercises/student/exercise_3_3.cpp)
  if(NOT student STREQUAL "broken")
    replace_in(${file} "${build_todo}" "${build_answer}")
  endif()
endforeach()
set(dir ${WORK}/%s/chapters/exercises/student/exercise_3_3.cpp)
string(REPLACE "%s" right file ${dir})
replace_in(${file} "${count_todo}" "    return ${three} + mha.out_proj.num_parameters();")
string(REPLACE "%s" wrong-golden file ${dir})
replace_in(${file} "${count_todo}" "    return ${three};")
foreach(kernel mkl default)  # the wrong answer's own output, as the student's golden
  file(WRITE ${WORK}/wrong-golden/data/golden/${kernel}/ch03_exercise_3_3.txt "1769472\n")
endforeach()
string(REPLACE "%s" broken file ${dir})
replace_in(${file} "${build_todo}" "    return MultiHeadAttention(gen, 768, 768, 1024, 0.0, 12)")
string(REPLACE "%s" hard-coded file ${dir})
replace_in(${file} "${count_todo}" "    return 2360064;")
string(REPLACE "%s" reads-golden file ${dir})
replace_in(${file} "#include \"llmfs/nn/attention.hpp\"" "#include <cstdlib>\n#include <fstream>\n#include \"llmfs/nn/attention.hpp\"")
replace_in(${file} "${count_todo}" "    std::size_t n = 1;\n    std::ifstream(std::string(std::getenv(\"LLMFS_DATA_DIR\")) + \"/golden/mkl/ch03_exercise_3_3.txt\") >> n;\n    return n;")

set(students_dirs "")
foreach(student ${students})
  list(APPEND students_dirs ${WORK}/${student})
endforeach()
execute_process(COMMAND ${TOOL} grade --json --summary ${WORK}/summaries --exercise 3.3 ${students_dirs}
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "grade failed (${code}):\n${out}\n${err}")
endif()
# student|verdict|a regex its details match
set(index 0)
foreach(expected "right|right|PyTorch's, byte for byte"
                 "wrong-golden|differs|expected: 2360064.*yours: +1769472$"
                 "broken|build-error|does not compile.*error"
                 "hard-coded|differs-on-variants|right on the book's case, differs on 3 of 3 variants: first on variant 1 \\(--variant 1\\).*yours: +2360064$"
                 "reads-golden|differs|expected: 2360064.*yours: +[01]$")
  string(REPLACE "|" ";" triple "${expected}")
  list(GET triple 0 student)
  list(GET triple 1 verdict)
  list(GET triple 2 why)
  grade_field("${out}" "${WORK}/${student}" verdict found)
  grade_field("${out}" "${WORK}/${student}" details details)
  if(NOT found STREQUAL verdict)
    message(FATAL_ERROR "grade: ${student} got '${found}' for 3.3, not '${verdict}':\n${out}")
  endif()
  if(NOT details MATCHES "${why}")
    message(FATAL_ERROR "grade: ${student}'s details do not match '${why}':\n${details}")
  endif()
  # --summary: the page to send back says the same
  math(EXPR index "${index} + 1")
  string(REPLACE "-" "_" name ${student})
  file(READ ${WORK}/summaries/${index}-${name}.txt page)
  if(NOT page MATCHES "3.3 Initializing GPT-2 size attention modules: ${verdict}\n")
    message(FATAL_ERROR "grade --summary: ${WORK}/summaries/${index}-${name}.txt does not give ${verdict}:\n${page}")
  endif()
  message(STATUS "ok: ${student}: ${verdict}")
endforeach()
