# Runs NBCHECK on NOTEBOOK_A and NOTEBOOK_B and requires the same report apart from the first line
# (which names the notebook): a notebook with rewritten comments and no markdown maps the same.
foreach(which A B)
  execute_process(COMMAND ${NBCHECK} ${NOTEBOOK_${which}} OUTPUT_VARIABLE out_${which} RESULT_VARIABLE code_${which})
  string(REGEX REPLACE "^[^\n]*\n" "" out_${which} "${out_${which}}")
endforeach()
if(NOT code_A STREQUAL code_B OR NOT out_A STREQUAL out_B)
  message(FATAL_ERROR "reports differ (exit ${code_A} and ${code_B}):\n--- ${NOTEBOOK_A}\n${out_A}\n--- ${NOTEBOOK_B}\n${out_B}")
endif()
