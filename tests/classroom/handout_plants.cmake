# `llmfs-exercise audit` on a copy of the fresh hand-out (HANDOUT, written by handout_write.cmake):
# the copy passes; then each kind of answer is planted in it, one at a time, and audit must fail
# naming exactly that file: a solution line in a student source, the book's solution code (a line
# of a BOOK SOLUTION block) as a comment in one, the book's solution notebook of
# chapter 3 under another name, and exercise 4.2's expected output as a text file of another name.
#   cmake -DSOURCE=<source tree> -DTOOL=<llmfs-exercise> -DHANDOUT=<dir> -DWORK=<dir> -P handout_plants.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${WORK})
file(COPY ${HANDOUT}/ DESTINATION ${WORK} PATTERN build EXCLUDE)
run_and_expect(0 ": 0 file\\(s\\) with an answer found" ${TOOL} audit ${WORK})

# The first answer line of solutions/exercise_3_2.cpp (read here, never written in this file).
file(STRINGS ${SOURCE}/chapters/exercises/solutions/exercise_3_2.cpp lines)
set(inside OFF)
set(answer "")
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  if(inside AND NOT line STREQUAL "" AND answer STREQUAL "")
    set(answer "${line}")
  endif()
  if(line MATCHES "^// BEGIN SOLUTION\\(")
    set(inside ON)
  endif()
endforeach()
if(answer STREQUAL "")
  message(FATAL_ERROR "no answer line in ${SOURCE}/chapters/exercises/solutions/exercise_3_2.cpp")
endif()
set(student ${WORK}/chapters/exercises/student/exercise_3_2.cpp)
file(READ ${student} original)
file(APPEND ${student} "    ${answer}\n")
run_and_expect(1 "(^|\n)chapters/exercises/student/exercise_3_2\\.cpp: solution line [^\n]*\n[^\n]*: 1 file\\(s\\) with an answer found"
               ${TOOL} audit ${WORK})
file(WRITE ${student} "${original}")

# The book's solution in PyTorch, as the student copies' headers once quoted it: the first code line
# of the solution's BEGIN BOOK SOLUTION block of 4.2 (read here, never written in this file), as a comment.
file(STRINGS ${SOURCE}/chapters/exercises/solutions/exercise_4_2.cpp lines)
set(inside OFF)
set(book "")
foreach(line IN LISTS lines)
  if(line MATCHES "^// BEGIN BOOK SOLUTION")
    set(inside ON)
  elseif(line MATCHES "^// END BOOK SOLUTION")
    set(inside OFF)
  elseif(inside AND book STREQUAL "" AND line MATCHES "^//   [^ ]")
    set(book "${line}")
  endif()
endforeach()
if(book STREQUAL "")
  message(FATAL_ERROR "no BOOK SOLUTION code line in ${SOURCE}/chapters/exercises/solutions/exercise_4_2.cpp")
endif()
set(student ${WORK}/chapters/exercises/student/exercise_4_2.cpp)
file(READ ${student} original)
file(APPEND ${student} "${book}\n")
run_and_expect(1 "(^|\n)chapters/exercises/student/exercise_4_2\\.cpp: the book's solution code [^\n]*\n[^\n]*: 1 file\\(s\\) with an answer found"
               ${TOOL} audit ${WORK})
file(WRITE ${student} "${original}")

file(COPY_FILE ${SOURCE}/tests/nbcheck/ch03_exercises_book.ipynb ${WORK}/docs/attention_notes.ipynb)
run_and_expect(1 "(^|\n)docs/attention_notes\\.ipynb: [^\n]*the book's solution code [^\n]*\n[^\n]*: 1 file\\(s\\) with an answer found"
               ${TOOL} audit ${WORK})
file(REMOVE ${WORK}/docs/attention_notes.ipynb)

file(COPY_FILE ${SOURCE}/data/golden/mkl/ch04_exercise_4_2.txt ${WORK}/tests/my_run.txt)
run_and_expect(1 "(^|\n)tests/my_run\\.txt: expected output of exercise 4\\.2 [^\n]*\n[^\n]*: 1 file\\(s\\) with an answer found"
               ${TOOL} audit ${WORK})
file(REMOVE ${WORK}/tests/my_run.txt)
file(REMOVE_RECURSE ${WORK})
