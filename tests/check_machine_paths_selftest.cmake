# The machine-paths check must catch what it promises to: builds a small git checkout under the
# current directory and runs check_machine_paths.cmake on it.
# cmake -DCHECK=<check_machine_paths.cmake> -DGIT=<git> -P check_machine_paths_selftest.cmake
# The planted paths are put together from pieces, so that this file names none itself.
cmake_minimum_required(VERSION 3.20)
if(NOT GIT)
  message("machine-paths: SKIPPED: git was not found when the build was configured: the self-test needs it")
  return()
endif()
set(t ${CMAKE_CURRENT_BINARY_DIR}/machine-paths-selftest)
set(s "/")  # the leading slash of a planted path

function(expect what should_fail)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${t} -DGIT=${GIT} -P ${CHECK}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(last_output "${out}${err}" PARENT_SCOPE)
  # shown below without the words that would make CTest report this self-test skipped
  string(REPLACE "machine-paths: SKIPPED" "machine-paths: (skipped)" out "${out}")
  string(REPLACE "machine-paths: SKIPPED" "machine-paths: (skipped)" err "${err}")
  if(should_fail AND code EQUAL 0)
    message(FATAL_ERROR "the machine-paths check passed ${what}:\n${out}${err}")
  elseif(NOT should_fail AND NOT code EQUAL 0)
    message(FATAL_ERROR "the machine-paths check failed ${what}:\n${out}${err}")
  endif()
  if(should_fail AND NOT ARGN STREQUAL "" AND NOT err MATCHES "${ARGN}")
    message(FATAL_ERROR "the machine-paths check failed ${what} without naming ${ARGN}:\n${err}")
  endif()
endfunction()
function(git)
  execute_process(COMMAND ${GIT} -C ${t} ${ARGN} RESULT_VARIABLE code OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "git ${ARGN} failed in ${t}: ${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${t})
file(MAKE_DIRECTORY ${t})
# (the build tree may lie inside the project's checkout: then git tracks nothing here)
expect("outside a git checkout" FALSE)
if(NOT last_output MATCHES "machine-paths: SKIPPED: .*(is not a git checkout|git tracks no file)")
  message(FATAL_ERROR "outside a git checkout the check must say it skipped, not pass:\n${last_output}")
endif()

git(init -q)
file(WRITE ${t}/data/x.txt "data\n")
file(WRITE ${t}/ok.md [=[
#!/usr/bin/env python3
see https://github.com/rasbt/LLMs-from-scratch and file:///usr/share/doc/x, <a href="x">y</a>
1/2 and 3/4 of it; cmd > /dev/null 2>&1; "/usr/bin/python3" (/etc/os-release) x=/proc/cpuinfo
`/sys/devices/x` and /bin/sh
std::string(SOURCE_DIR) + "/data/golden/x" and {"/data/", "/data/y"}
"$OLDPWD"/build/bin/llmfs-exercise and ${dir}/opt/x and $(mktemp -d)/book/ch05
BOOK=/path/to/LLMs-from-scratch, "/nonexistent/x.png", "/h/exercise_3_2.cpp:25:13: error"
]=])
git(add ok.md data/x.txt)
expect("a checkout naming only the system's paths, URLs, relative paths and placeholders" FALSE)
if(NOT last_output MATCHES "machine-paths: no tracked file")
  message(FATAL_ERROR "a clean checkout must say it was checked:\n${last_output}")
endif()

file(WRITE ${t}/untracked.txt "${s}work/x/y\n")
expect("with an untracked file naming a machine path" FALSE)
file(REMOVE ${t}/untracked.txt)

# a tracked binary file (a NUL byte in it) is not text: git grep -I skips it
execute_process(COMMAND printf "\\000\\n${s}work/x/y\\n" OUTPUT_FILE ${t}/binary.dat RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "printf could not write ${t}/binary.dat")
endif()
git(add binary.dat)
expect("with a tracked binary file holding the bytes of a machine path" FALSE)

file(WRITE ${t}/planted.txt "${s}work/x/y\n")
git(add planted.txt)
expect("a tracked file naming ${s}work/x/y" TRUE "planted.txt:1:${s}work/x/y")
git(rm -q --cached planted.txt)
file(REMOVE ${t}/planted.txt)

foreach(line
    "the book is at ${s}work/book/ch05"
    "cmd | tee ${s}tmp/llmfs.log"
    "cd ${s}home/x/llmfs"
    "open('${s}root/data/x')"
    "PREFIX=${s}opt/llmfs/bin"
    "`${s}work/main/build/bin/llmfs-exercise grade`"
    "File \"${s}work/helpers/x.py\", line 1, in <module>"
    "a path:${s}mnt/disk/x")
  file(WRITE ${t}/sub/planted.py "ok line\n${line}\n")
  git(add sub/planted.py)
  expect("a tracked file with the line: ${line}" TRUE "sub/planted.py:2:")
  git(rm -q --cached sub/planted.py)
endforeach()
file(REMOVE_RECURSE ${t})
