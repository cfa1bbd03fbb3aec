# In a fresh hand-out (HANDOUT, built by handout_build.cmake) every answer is still a TODO: each
# exercise's check, in both dropout modes, must fail as "not finished", naming its exercise and TODO.
#   cmake -DHANDOUT=<dir> -P student_todos.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
foreach(id 3.1 3.2 3.3 4.1 4.2 4.3 5.1 5.3)
  string(REPLACE "." "\\." id_regex ${id})
  foreach(kernel mkl default)
    run_and_expect(1 "exercise ${id_regex}: not finished: .*exercise ${id_regex} is not done yet: TODO\\(exercise ${id_regex}\\): "
                   ${HANDOUT}/build/bin/llmfs-exercise check ${id} --bernoulli ${kernel})
  endforeach()
endforeach()
