# A student doing exercise 3.2 in the hand-out (HANDOUT, built by handout_build.cmake), checking
# each step with `llmfs-exercise check 3.2`, which builds the program from the current source
# before judging it (it never judges a stale program), and says which of its verdicts applies.
#   cmake -DHANDOUT=<dir> -P student_fixes.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
set(source ${HANDOUT}/chapters/exercises/student/exercise_3_2.cpp)
set(check ${HANDOUT}/build/bin/llmfs-exercise check 3.2)
# A run that failed halfway left its edit: put the original back first (kept beside it).
if(EXISTS ${source}.original)
  file(RENAME ${source}.original ${source})
endif()
file(READ ${source} original)
file(WRITE ${source}.original "${original}")
set(todo "    exercise_todo(\"3.2\", \"return the d_out each of the num_heads heads needs for context vectors of context_dim dimensions\");")

run_and_expect(1 "exercise 3\\.2: not finished: ch03_exercise_3_2 stopped at a TODO" ${check})
replace_in(${source} "${todo}" "    return 1;")
run_and_expect(0 "exercise 3\\.2: right: your output is PyTorch's, byte for byte\\." ${check})
# Changed without rebuilding: check rebuilds, and judges the new answer.
replace_in(${source} "    return 1;" "    return 3;")
run_and_expect(1 "exercise 3\\.2: your context_vecs differs from the expected output; first differing line \\(line 1" ${check})
replace_in(${source} "    return 3;" "    return 3")
run_and_expect(1 "exercise 3\\.2: does not compile: chapters/exercises/student/exercise_3_2\\.cpp failed to build:\n.*error: expected [^ ]*;[^ ]* before" ${check})
# A runtime error in the student's code is not "not finished".
replace_in(${source} "    return 3" "    throw std::runtime_error(\"matmul: shapes [6, 3] and [2, 3] do not fit\");")
run_and_expect(1 "exercise 3\\.2: your code stops with an error: ch03_exercise_3_2 exited with code 1:\n.*matmul: shapes \\[6, 3\\] and \\[2, 3\\] do not fit" ${check})
# Put back as a backup would be, with the old modification time: check must see the change anyway.
file(RENAME ${source}.original ${source})
run_and_expect(1 "exercise 3\\.2: not finished" ${check})
