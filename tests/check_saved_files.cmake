# A program that saves files as the book's code does (chapter 7's script, chapter 6's notebook), end
# to end in a fresh SCRATCH folder as its working directory: its standard output must be GOLDEN byte
# for byte, its standard error match STDERR_REGEX (if given), the folder hold exactly WRITTEN (a
# sorted ;-list: no .partial left), each .pdf of them a PDF, the file COMPARE (if given) equal
# COMPARE_GOLDEN byte for byte, and the torch.save file PTH PyTorch's: each record RECORDS lists
# for it (data.pkl and every tensor's data/N) has PyTorch's SHA-256, the same pickle and tensors,
# bit for bit (the zip's other records, 2.x's byteorder and serialization_id, are the format's).
#   cmake -DPROGRAM=... -DARGS=a;b -DGOLDEN=... -DSCRATCH=dir -DWRITTEN=a;b -DPTH=x.pth -DRECORDS=...
#         [-DSTDERR_REGEX=...] [-DCOMPARE=file -DCOMPARE_GOLDEN=...] -P check_saved_files.cmake
include(${CMAKE_CURRENT_LIST_DIR}/pth_records.cmake)
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
execute_process(COMMAND ${EMULATOR} ${PROGRAM} ${ARGS} WORKING_DIRECTORY ${SCRATCH}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} exited with ${code}:\n${err}")
endif()
file(READ ${GOLDEN} expected)
if(NOT out STREQUAL expected)
  file(WRITE ${SCRATCH}.stdout.txt "${out}")
  message(FATAL_ERROR "the output differs from ${GOLDEN}: see ${SCRATCH}.stdout.txt\n")
endif()
if(DEFINED STDERR_REGEX AND NOT err MATCHES "${STDERR_REGEX}")
  message(FATAL_ERROR "stderr does not match ${STDERR_REGEX}:\n${err}")
endif()
file(GLOB left RELATIVE ${SCRATCH} ${SCRATCH}/*)
list(SORT left)
if(NOT left STREQUAL "${WRITTEN}")
  message(FATAL_ERROR "expected [${WRITTEN}] in ${SCRATCH}, found: [${left}]")
endif()
foreach(f ${WRITTEN})
  file(READ ${SCRATCH}/${f} magic LIMIT 4 HEX)
  if(f MATCHES "\\.pdf$" AND NOT magic STREQUAL "25504446")
    message(FATAL_ERROR "${SCRATCH}/${f} is not a PDF (it starts ${magic})")
  endif()
endforeach()
if(DEFINED COMPARE)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${SCRATCH}/${COMPARE} ${COMPARE_GOLDEN} RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "${SCRATCH}/${COMPARE} differs from ${COMPARE_GOLDEN}")
  endif()
endif()
check_pth_records(${SCRATCH}/${PTH} ${PTH} ${RECORDS} ON ${SCRATCH})
file(REMOVE_RECURSE ${SCRATCH})
