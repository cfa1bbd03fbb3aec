# Precompiled headers: the xtensor and fmt headers that nearly every file of the project includes,
# parsed once per build instead of once per file. Parsing them took about 2.5 s of every file's 4 to
# 13 s at -O3 (GCC 12), and the project compiles about 120 files: the Release build took 6m46 on 2
# cores without them, 4m54 with them. Adding the standard headers the files include most saved
# nothing more (xtensor includes most of them).
#
# One PCH, built by its own target (llmfs_pch) with only the flags every target shares, and reused by
# every executable and by libllmfs. GCC refuses a PCH built with a macro the file using it does not
# define (-Winvalid-pch says so, and the file then parses the headers itself), so the PCH cannot be
# libllmfs's own: that target defines LLMFS_GOLDEN_BLAS_KERNEL, which no program does.
#
# Only third-party headers, which change with the packages and not with our code. Every file still
# includes what it uses (the PCH only makes that include cheap), and a build with
#   cmake -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON ...
# (CMake's own switch) compiles each file without it, as the aarch64 cross-build of .ci/run does
# (tests/cross/aarch64.sh: the library, the chapter programs, the exercises and the unit tests), so
# that a file missing an include still fails somewhere.
#
# Not for builds of students' exercises by `llmfs-exercise grade` (they include only
# llmfs_dependencies.cmake), nor for Catch2's main (common/test_main.cpp defines CATCH_CONFIG_MAIN
# before its include).

set(LLMFS_PCH_HEADERS <fmt/format.h> <xtensor/xarray.hpp> <xtensor/xeval.hpp> <xtensor/xtensor.hpp> <xtensor/xview.hpp>)

add_library(llmfs_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/llmfs_pch.cpp)
target_link_libraries(llmfs_pch PRIVATE xtensor ${LLMFS_FMT})
target_precompile_headers(llmfs_pch PRIVATE ${LLMFS_PCH_HEADERS})

# libllmfs and every executable of the folders added so far (included after the last
# add_subdirectory) compile with the PCH, except a target that sets LLMFS_NO_PCH: one that links
# neither fmt nor xtensor (tests/blas_kernel_name, OpenBLAS only) would get GCC's warning that the
# PCH is "not used because FMT_SHARED not defined", and parses none of its headers anyway.
#
# LLMFS_PROGRAM_CXX_FLAGS: flags for the chapter programs only (chapters/), after the build type's.
# .ci/run's sanitizer build compiles them at -O0 (still instrumented), and the library, the tools
# and the tests, where the computing is, at its -O1: clang with ASan and UBSan compiles a chapter
# main five times as fast at -O0, and the 50 mains took a third of that build's time. A PCH must be
# built with its users' optimization level (clang refuses one whose __OPTIMIZE__ differs), so the
# programs then get their own.
set(LLMFS_PROGRAM_CXX_FLAGS "" CACHE STRING "Extra compile flags for the chapter programs (e.g. -O0)")
separate_arguments(llmfs_program_flags UNIX_COMMAND "${LLMFS_PROGRAM_CXX_FLAGS}")
set(llmfs_program_pch llmfs_pch)
if(llmfs_program_flags)
  add_library(llmfs_pch_programs OBJECT ${PROJECT_SOURCE_DIR}/cmake/llmfs_pch.cpp)
  target_link_libraries(llmfs_pch_programs PRIVATE xtensor ${LLMFS_FMT})
  target_compile_options(llmfs_pch_programs PRIVATE ${llmfs_program_flags})
  target_precompile_headers(llmfs_pch_programs PRIVATE ${LLMFS_PCH_HEADERS})
  set(llmfs_program_pch llmfs_pch_programs)
endif()
target_precompile_headers(llmfs REUSE_FROM llmfs_pch)
get_property(llmfs_dirs DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY SUBDIRECTORIES)
foreach(dir ${llmfs_dirs})
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    get_target_property(no_pch ${target} LLMFS_NO_PCH)
    set(pch llmfs_pch)
    if(type STREQUAL "EXECUTABLE" AND dir MATCHES "/chapters/")
      target_compile_options(${target} PRIVATE ${llmfs_program_flags})
      set(pch ${llmfs_program_pch})
    endif()
    if(type STREQUAL "EXECUTABLE" AND NOT no_pch)
      target_precompile_headers(${target} REUSE_FROM ${pch})
    endif()
  endforeach()
endforeach()
