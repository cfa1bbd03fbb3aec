# llmfs-train --save FILE.pth, then llmfs-train --resume FILE.pth, against PyTorch's run of the same
# (tests/goldens/resume_reference.py: the book's gpt_train.py code, torch.save, exercise 5.4's
# continuation):
#   1. TRAIN FIRST_ARGS --save SCRATCH/FILE (FILE: model_and_optimizer.pth with --with-optimizer, or
#      model.pth): its stdout is GOLDEN_FIRST;
#   2. the exact way only: every tensor record of the saved zip has the SHA-256 that RECORDS gives
#      for PyTorch's file of that name (data/0, data/1, ...: the same tensors, bit for bit, in the
#      same order), and with -DCOMPARE_PICKLE=ON its data.pkl too (the pickle, byte for byte);
#   3. TRAIN --resume SCRATCH/FILE RESUME_ARGS: its stdout is GOLDEN_RESUME.
# The exact way compares byte for byte; -DGOLDEN_DIFF=<golden_diff> (the native way, another BLAS
# kernel than the goldens') accepts the same lines with the losses within 0.1 and skips step 2.
# The checkpoint stays in SCRATCH (ch05_exercise_5_4's test continues from it).
#   cmake -DTRAIN=... -DFILE=name.pth "-DFIRST_ARGS=--seed 123 ..." "-DRESUME_ARGS=--epochs 1 ..." (space-separated) -DGOLDEN_FIRST=... -DGOLDEN_RESUME=...
#         -DRECORDS=... -DSCRATCH=dir [-DCOMPARE_PICKLE=ON] [-DGOLDEN_DIFF=...] -P check_train_resume.cmake
include(${CMAKE_CURRENT_LIST_DIR}/pth_records.cmake)
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
separate_arguments(FIRST_ARGS UNIX_COMMAND "${FIRST_ARGS}")
separate_arguments(RESUME_ARGS UNIX_COMMAND "${RESUME_ARGS}")

function(expect_output what actual golden)
  file(READ ${golden} expected)
  if(actual STREQUAL expected)
    return()
  endif()
  set(actual_file ${SCRATCH}/${what}-actual.txt)
  file(WRITE ${actual_file} "${actual}")
  if(DEFINED GOLDEN_DIFF)
    execute_process(COMMAND ${EMULATOR} ${GOLDEN_DIFF} --close --training 0.1 ${golden} ${actual_file}
                    OUTPUT_VARIABLE verdict ERROR_VARIABLE delta RESULT_VARIABLE code)
    if(code EQUAL 0)
      message(STATUS "${what}: ${verdict}")
      return()
    endif()
  else()
    execute_process(COMMAND diff -u ${golden} ${actual_file} OUTPUT_VARIABLE delta)
  endif()
  message(FATAL_ERROR "${what}: the output differs from ${golden}:\n${delta}")
endfunction()

set(checkpoint ${SCRATCH}/${FILE})
execute_process(COMMAND ${EMULATOR} ${TRAIN} ${FIRST_ARGS} --save ${checkpoint}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${TRAIN} ${FIRST_ARGS} --save ${checkpoint} exited with ${code}:\n${err}")
endif()
expect_output(first "${out}" ${GOLDEN_FIRST})

if(NOT DEFINED GOLDEN_DIFF)
  check_pth_records(${checkpoint} ${FILE} ${RECORDS} "${COMPARE_PICKLE}" ${SCRATCH})
endif()

execute_process(COMMAND ${EMULATOR} ${TRAIN} --resume ${checkpoint} ${RESUME_ARGS}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${TRAIN} --resume ${checkpoint} ${RESUME_ARGS} exited with ${code}:\n${err}")
endif()
expect_output(resumed "${out}" ${GOLDEN_RESUME})
