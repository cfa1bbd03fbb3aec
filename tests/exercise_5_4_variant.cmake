# Exercise 5.4's hidden variant (--variant 1) on a checkpoint of the exercise's sizes, trained here by
# llmfs-train on the first 3,000 bytes of the-verdict.txt (seconds): it loads the checkpoint as the
# book's case does, shuffles after another seed and evaluates every 3 steps.
#   cmake -DTRAIN=<llmfs-train> -DPROGRAM=<ch05_exercise_5_4> -DTEXT=<the-verdict.txt> -DWORK=<dir> -P exercise_5_4_variant.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(READ ${TEXT} text LIMIT 3000)
file(WRITE ${WORK}/small.txt "${text}")
execute_process(COMMAND ${TRAIN} --text ${WORK}/small.txt --context-length 16 --emb-dim 24 --n-heads 12 --n-layers 1 --epochs 1
                        --save ${WORK}/checkpoint.pth --with-optimizer
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "llmfs-train failed (${code}): ${err}")
endif()
execute_process(COMMAND ${PROGRAM} --variant 1 --annotate --checkpoint ${WORK}/checkpoint.pth
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --variant 1 failed (${code}): ${err}")
endif()
foreach(expected "# Note: --variant 1: torch\\.manual_seed\\(456\\) before the loaders, eval_freq=3\n"
                 "\nEp 1 \\(Step 000000\\): Train loss [0-9.]+, Val loss [0-9.]+\nEp 1 \\(Step 000003\\): ")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "${PROGRAM} --variant 1 does not print /${expected}/:\n${out}")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
