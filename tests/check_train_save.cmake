# llmfs-train --save and --figure, end to end: trains (ARGS), saves the weights and the loss plot,
# then continues the script's start context with llmfs-generate --weights on the saved file, 50
# greedy tokens as the sample after the last epoch: the text must be that sample (newlines shown as
# spaces, as generate_and_print_sample prints them), and the PNG must exist. Nothing else is left
# in SCRATCH (no .partial file).
#   cmake -DTRAIN=... -DGENERATE=... -DARGS=a;b -DSCRATCH=dir -P check_train_save.cmake
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
execute_process(COMMAND ${EMULATOR} ${TRAIN} ${ARGS} --save ${SCRATCH}/trained.safetensors --figure ${SCRATCH}/loss.png
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${TRAIN} ${ARGS} exited with ${code}:\n${err}")
endif()
if(NOT err MATCHES "loss plot written to ${SCRATCH}/loss\\.png\n" OR NOT err MATCHES "weights written to ${SCRATCH}/trained\\.safetensors ")
  message(FATAL_ERROR "stderr does not say where the weights and the plot went:\n${err}")
endif()
file(GLOB left RELATIVE ${SCRATCH} ${SCRATCH}/*)
list(SORT left)
if(NOT left STREQUAL "loss.png;trained.safetensors")
  message(FATAL_ERROR "expected loss.png and trained.safetensors in ${SCRATCH}, found: ${left}")
endif()
string(REGEX MATCH "[^\n]*\n$" sample "${out}")
string(REGEX REPLACE "\n$" "" sample "${sample}")
execute_process(COMMAND ${EMULATOR} ${GENERATE} --weights ${SCRATCH}/trained.safetensors --prompt "Every effort moves you" --max-new-tokens 50
                OUTPUT_VARIABLE generated ERROR_VARIABLE gen_err RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "llmfs-generate --weights ${SCRATCH}/trained.safetensors exited with ${code}:\n${gen_err}")
endif()
string(FIND "${generated}" "\n" first_newline)
math(EXPR text_start "${first_newline} + 1")
string(SUBSTRING "${generated}" ${text_start} -1 text)
string(REGEX REPLACE "\n$" "" text "${text}")
string(REPLACE "\n" " " text "${text}")
if(NOT text STREQUAL sample)
  message(FATAL_ERROR "llmfs-generate --weights continues otherwise than the trained model's last sample:\n"
                      "  llmfs-train:    ${sample}\n  llmfs-generate: ${text}\n(llmfs-generate's stderr: ${gen_err})")
endif()
