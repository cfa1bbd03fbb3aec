# The student README's "A program of your own", step by step, on the hand-out (HANDOUT): a new
# chapters/ch03/my_attention.cpp, two lines at the end of chapters/ch03/CMakeLists.txt, then the
# documented command. Undone afterwards.
#   cmake -DHANDOUT=<dir> -P own_program.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
set(lists ${HANDOUT}/chapters/ch03/CMakeLists.txt)
# A run that failed halfway left its edit: put the original back first (kept beside it).
if(EXISTS ${lists}.original)
  file(RENAME ${lists}.original ${lists})
endif()
file(READ ${lists} original_lists)
file(WRITE ${lists}.original "${original_lists}")
file(WRITE ${HANDOUT}/chapters/ch03/my_attention.cpp [=[
#include "llmfs/app/cli.hpp"
#include "llmfs/nn/attention.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_chapter(argc, argv, "my attention", [](Notebook& nb, Generator& gen) {
        nb.code("torch.manual_seed(123)\nprint(torch.rand(2))");
        gen.manual_seed(123);
        nb.print(Tensor<1>(rand<1>(gen, {2})));
    });
}
]=])
file(APPEND ${lists} "add_executable(ch03_my_attention my_attention.cpp)\ntarget_link_libraries(ch03_my_attention PRIVATE llmfs)\n")
# The README's command: configure again (CMake learns of the new target only then), build it, run it.
run_and_expect(0 "" ${CMAKE_COMMAND} -S ${HANDOUT} -B ${HANDOUT}/build)
run_and_expect(0 "" ${CMAKE_COMMAND} --build ${HANDOUT}/build --target ch03_my_attention)
run_and_expect(0 "^tensor\\(\\[0\\.2961, 0\\.5166\\]\\)\n$" ${HANDOUT}/build/bin/ch03_my_attention)
file(RENAME ${lists}.original ${lists})
file(REMOVE ${HANDOUT}/chapters/ch03/my_attention.cpp)
