# No tracked file names a folder of one particular machine (the book's checkout, the project's own
# checkout, a fixed temporary file): every absolute path in the text of a tracked file must be one
# of the system's own. cmake -DSOURCE_DIR=<checkout> -DGIT=<git> -P check_machine_paths.cmake
#
# What counts as an absolute path in text: a "/" at the start of a line or after whitespace, "(",
# "=", ":" or a backtick, or after an opening quote (one at the start of a line or after one of
# those or "," "[" "{"), followed by a lowercase word of two or more characters and another "/".
# So a URL (its "//" follows ":"), an HTML end tag, a fraction, a path joined to a variable
# ("$dir"/sub/x, ${dir}/sub/x), a "#!" line and a single-letter folder are not counted.
# Allowed first components: the system's folders usr etc dev proc sys bin; nonexistent (Debian's
# folder that never exists, used by tests for a path that cannot be opened); the project's own
# top-level folders (a path relative to the checkout joined to its root, as in
# SOURCE_DIR + "/data/..."); and the placeholder /path/to/. Binary files are not read (git grep -I).
#
# Outside a git checkout (or without git) nothing can be listed: the script says so with
# "machine-paths: SKIPPED", which the test's SKIP_REGULAR_EXPRESSION reports as skipped, not passed.
cmake_minimum_required(VERSION 3.20)
set(allowed usr etc dev proc sys bin nonexistent)

if(NOT GIT)
  message("machine-paths: SKIPPED: git was not found when the build was configured, so the tracked files of ${SOURCE_DIR} could not be listed: nothing was checked")
  return()
endif()
execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --is-inside-work-tree
                RESULT_VARIABLE code OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message("machine-paths: SKIPPED: ${SOURCE_DIR} is not a git checkout (${err}), so its tracked files could not be listed: nothing was checked")
  return()
endif()

# The tracked files under SOURCE_DIR (git lists those of the current directory and below), and
# from them the project's top-level folders.
set(top ${SOURCE_DIR})
execute_process(COMMAND ${GIT} -C ${top} -c core.quotePath=false ls-files RESULT_VARIABLE code OUTPUT_VARIABLE files)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "machine-paths: git ls-files failed in ${top}")
endif()
if(files STREQUAL "")
  message("machine-paths: SKIPPED: git tracks no file in ${SOURCE_DIR}: nothing was checked")
  return()
endif()
string(REPLACE ";" "\\;" files "${files}")
string(REPLACE "\n" ";" files "${files}")
foreach(f IN LISTS files)
  if(f MATCHES "^([^/]+)/")
    list(APPEND allowed "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(REMOVE_DUPLICATES allowed)

set(regex [=[(^|[[:space:](=:`]|(^|[[:space:](=:,{[])["'])/[a-z][a-z0-9_.-]+/[^[:space:]"'`),;:<>{}]*]=])
execute_process(COMMAND ${GIT} -C ${top} -c core.quotePath=false grep -I -n -o -E "${regex}"
                RESULT_VARIABLE code OUTPUT_VARIABLE hits ERROR_VARIABLE err)
if(code EQUAL 1)
  message("machine-paths: no tracked file of ${top} names an absolute path outside: ${allowed}")
  return()
elseif(NOT code EQUAL 0)
  message(FATAL_ERROR "machine-paths: git grep failed (${code}) in ${top}: ${err}")
endif()

string(REPLACE ";" "\\;" hits "${hits}")
string(REPLACE "\n" ";" hits "${hits}")
set(bad "")
foreach(hit IN LISTS hits)
  if(hit STREQUAL "")
    continue()
  endif()
  # file:line:<the character before>/first/..., the path holding no ":"
  string(REGEX MATCH "/[a-z][a-z0-9_.-]+/[^:]*$" path "${hit}")
  string(REGEX REPLACE "^/([^/]+)/.*" "\\1" first "${path}")
  if(first IN_LIST allowed OR path MATCHES "^/path/to/")
    continue()
  endif()
  string(APPEND bad "  ${hit}\n")
endforeach()
if(bad)
  message(FATAL_ERROR "machine-paths: tracked files of ${top} name absolute paths of a particular machine "
                      "(write a placeholder instead: BOOK for the book's checkout, a path relative to the "
                      "project's root, mktemp/tempfile for a temporary file):\n${bad}")
endif()
message("machine-paths: no tracked file of ${top} names an absolute path outside: ${allowed}")
