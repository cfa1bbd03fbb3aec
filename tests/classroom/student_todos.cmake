# In a fresh hand-out (HANDOUT, built by handout_build.cmake) every answer is still a TODO: each
# exercise's check, in both dropout modes (5.4: the default one), must fail as "not finished",
# naming its exercise and TODO.
#   cmake -DHANDOUT=<dir> -P student_todos.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
foreach(id 2.1 2.2 3.1 3.2 3.3 4.1 4.2 4.3 5.1 5.3 5.4)
  string(REPLACE "." "\\." id_regex ${id})
  set(kernels mkl default)
  if(id STREQUAL "5.4")
    set(kernels default)  # a training exercise: PyTorch's goldens on OpenBLAS only
  endif()
  foreach(kernel ${kernels})
    run_and_expect(1 "exercise ${id_regex}: not finished: .*exercise ${id_regex} is not done yet: TODO\\(exercise ${id_regex}\\): "
                   ${HANDOUT}/build/bin/llmfs-exercise check ${id} --bernoulli ${kernel})
  endforeach()
endforeach()
