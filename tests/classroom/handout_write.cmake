# Writes a fresh student hand-out into HANDOUT with TOOL (llmfs-exercise handout), which checks
# its own output for answers.   cmake -DTOOL=<llmfs-exercise> -DHANDOUT=<dir> -P handout_write.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${HANDOUT})
run_and_expect(0 "Wrote the student hand-out to .* \\([0-9]+ files, no answer in any of them: checked\\)" ${TOOL} handout ${HANDOUT})
foreach(absent chapters/exercises/solutions tests/goldens/exercises_reference.py docs/classroom.md)
  if(EXISTS ${HANDOUT}/${absent})
    message(FATAL_ERROR "the hand-out holds ${absent}")
  endif()
endforeach()
file(READ ${HANDOUT}/README.md readme)
if(readme MATCHES "solutions/|student-sources|LLMFS_EXERCISES=solutions")
  message(FATAL_ERROR "the hand-out's README.md speaks of the solutions")
endif()
