# The one kernel list, kernels/ladder.inc, read once for every CMake user (the library's
# sources, the CLI and bench tests, the SASS tests). Each line RUNG(number, name, parent,
# precision, "summary") (parent: the rung it grew from, which scripts/diff reads; not here)
# names kernels/NN_name.cu, docs/NN_name.md and the tests NN_name. Sets, in ladder order:
#   SGEMM_RUNG_NUMBERS    1;2;...                       as the list writes them
#   SGEMM_RUNG_NAMES      naive;coalesced;...
#   SGEMM_RUNG_STEMS      01_naive;02_coalesced;...     NN_name: file, doc and test names
#   SGEMM_KERNEL_SOURCES  <root>/kernels/01_naive.cu;... absolute paths
#   SGEMM_SM90A_SOURCES   those of them whose file has the line "// Needs: sm_90a" (Hopper's
#                         architecture-specific target; CMakeLists.txt builds them apart)
#   SGEMM_SM90A_NUMBERS   their rung numbers (`sgemm --list` marks them)
# Iterate over rungs with foreach(number name IN ZIP_LISTS SGEMM_RUNG_NUMBERS SGEMM_RUNG_NAMES).
cmake_path(GET CMAKE_CURRENT_LIST_DIR PARENT_PATH _sgemm_root)
set(_sgemm_list ${_sgemm_root}/kernels/ladder.inc)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_sgemm_list})

file(STRINGS ${_sgemm_list} _sgemm_lines REGEX "^RUNG\\(")
set(SGEMM_RUNG_NUMBERS "")
set(SGEMM_RUNG_NAMES "")
set(SGEMM_RUNG_STEMS "")
set(SGEMM_KERNEL_SOURCES "")
set(SGEMM_SM90A_SOURCES "")
set(SGEMM_SM90A_NUMBERS "")
foreach(_sgemm_line IN LISTS _sgemm_lines)
  if(NOT _sgemm_line MATCHES "^RUNG\\(([0-9]+), *([a-z0-9_]+), *[0-9]+, *(fp32|tf32),")
    message(FATAL_ERROR "kernels/ladder.inc: cannot read '${_sgemm_line}'")
  endif()
  set(_sgemm_stem ${CMAKE_MATCH_1}_${CMAKE_MATCH_2})
  if(CMAKE_MATCH_1 LESS 10)
    set(_sgemm_stem 0${_sgemm_stem})
  endif()
  set(_sgemm_source ${_sgemm_root}/kernels/${_sgemm_stem}.cu)
  if(NOT EXISTS ${_sgemm_source})
    message(FATAL_ERROR "kernels/ladder.inc lists rung ${CMAKE_MATCH_1} "
                        "but kernels/${_sgemm_stem}.cu does not exist")
  endif()
  list(APPEND SGEMM_RUNG_NUMBERS ${CMAKE_MATCH_1})
  list(APPEND SGEMM_RUNG_NAMES ${CMAKE_MATCH_2})
  list(APPEND SGEMM_RUNG_STEMS ${_sgemm_stem})
  list(APPEND SGEMM_KERNEL_SOURCES ${_sgemm_source})
  file(STRINGS ${_sgemm_source} _sgemm_needs REGEX "^// Needs: sm_90a" LIMIT_COUNT 1)
  if(_sgemm_needs)
    list(APPEND SGEMM_SM90A_SOURCES ${_sgemm_source})
    list(GET SGEMM_RUNG_NUMBERS -1 _sgemm_number)
    list(APPEND SGEMM_SM90A_NUMBERS ${_sgemm_number})
  endif()
endforeach()
