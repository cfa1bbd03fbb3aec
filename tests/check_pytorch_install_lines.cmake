# Every install line of the README and docs/ (and tests/goldens/README.md) that names Debian's
# python3-torch also names python3-packaging: PyTorch 1.13's `import torch` needs `packaging`, which
# the Debian package does not install, so tools/bench_pytorch.py and the golden scripts failed on a
# machine that followed the README (issue 52).
set(files ${SOURCE_DIR}/README.md ${SOURCE_DIR}/tests/goldens/README.md)
file(GLOB docs ${SOURCE_DIR}/docs/*.md)
list(APPEND files ${docs})
set(found 0)
foreach(f ${files})
  file(READ ${f} text)
  string(REPLACE "\n" " " text "${text}")
  string(REGEX MATCHALL "apt-get install[^`]*python3-torch[^`]*" lines "${text}")
  foreach(line ${lines})
    math(EXPR found "${found} + 1")
    if(NOT line MATCHES "python3-packaging")
      message(FATAL_ERROR "${f}: `${line}` installs python3-torch without python3-packaging (import torch needs it)")
    endif()
  endforeach()
endforeach()
if(found EQUAL 0)
  message(FATAL_ERROR "no install line names python3-torch: the README should say what the PyTorch side needs")
endif()
message(STATUS "${found} install line(s) of python3-torch, each with python3-packaging")
