# check_pth_records(PATH NAME RECORDS COMPARE_PICKLE WORK): the torch.save file at PATH against the
# records PyTorch's own file of that NAME has in RECORDS (lines "NAME RECORD SHA256 WHAT", written by
# tests/goldens' pth_records or resume_reference.py): each tensor record data/N, and data.pkl when
# COMPARE_PICKLE, must exist in the zip's folder (the file's stem, as torch.save names it) with that
# SHA-256. Unzips into WORK/unzipped, removed after. Included by check_saved_files.cmake and
# check_train_resume.cmake.
function(check_pth_records path name records compare_pickle work)
  set(unzipped ${work}/unzipped)
  file(ARCHIVE_EXTRACT INPUT ${path} DESTINATION ${unzipped})
  get_filename_component(folder ${name} NAME_WE)
  file(STRINGS ${records} rows REGEX "^${name} ")
  set(checked 0)
  foreach(row ${rows})
    string(REPLACE " " ";" fields "${row}")
    list(GET fields 1 record)
    list(GET fields 2 expected)
    if(record STREQUAL "data.pkl" AND NOT compare_pickle)
      continue()
    endif()
    if(NOT EXISTS ${unzipped}/${folder}/${record})
      message(FATAL_ERROR "${path} has no record ${folder}/${record} (PyTorch's file has: ${row})")
    endif()
    file(SHA256 ${unzipped}/${folder}/${record} actual)
    if(NOT actual STREQUAL expected)
      message(FATAL_ERROR "${path}: record ${record} differs from PyTorch's (${records}):\n  ${row}\n  ours: ${actual}")
    endif()
    math(EXPR checked "${checked} + 1")
  endforeach()
  if(checked EQUAL 0)
    message(FATAL_ERROR "${records} lists no record of ${name}")
  endif()
  file(REMOVE_RECURSE ${unzipped})
  message(STATUS "${checked} records of ${name} equal PyTorch's")
endfunction()
