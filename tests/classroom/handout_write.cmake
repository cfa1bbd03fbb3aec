# Writes a fresh student hand-out into HANDOUT with TOOL (llmfs-exercise handout), which checks
# its own output for answers.   cmake -DTOOL=<llmfs-exercise> -DHANDOUT=<dir> -P handout_write.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${HANDOUT})
run_and_expect(0 "Wrote the student hand-out to .* \\([0-9]+ files, no answer in any of them: checked\\)" ${TOOL} handout ${HANDOUT})
# No answer in any form: no solution, no book solution notebook, no expected output as text (5.4's
# also stands as llmfs-train's resume golden); digests in its place.
foreach(absent chapters/exercises/solutions tests/goldens/exercises_reference.py docs/classroom.md
               tests/nbcheck/ch02_exercises_book.ipynb tests/nbcheck/ch03_exercises_book.ipynb tests/nbcheck/ch04_exercises_book.ipynb
               tests/nbcheck/ch05_exercises_book.ipynb
               data/golden/mkl/ch03_exercise_3_3.txt data/golden/default/ch05_exercise_5_4.txt
               data/golden/train/resume_c16_e24_h12_l1_d01.txt)
  if(EXISTS ${HANDOUT}/${absent})
    message(FATAL_ERROR "the hand-out holds ${absent}")
  endif()
endforeach()
foreach(present data/golden/mkl/ch03_exercise_3_3.lines data/golden/default/ch05_exercise_5_4.lines)
  if(NOT EXISTS ${HANDOUT}/${present})
    message(FATAL_ERROR "the hand-out has no ${present}")
  endif()
endforeach()
file(READ ${HANDOUT}/README.md readme)
if(readme MATCHES "solutions/|student-sources|LLMFS_EXERCISES=solutions")
  message(FATAL_ERROR "the hand-out's README.md speaks of the solutions")
endif()
