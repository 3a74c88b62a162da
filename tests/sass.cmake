# SASS tests (labels `cpu` and `sass`): what each rung's lesson relies on, checked in the
# machine code of the built `sgemm` with cuobjdump; no GPU needed. One test per rung, named
# sass.NN_name; the expectations live in sass_expectations.json (one entry per rung), and
# every rung from 4 on is also checked for local memory (spills). Without cuobjdump the tests
# fail and say so (cmake/cuobjdump.cmake finds or fetches it).
#   ctest --test-dir build -L sass --output-on-failure
set(_sass_expect ${CMAKE_CURRENT_SOURCE_DIR}/sass_expectations.json)
set(_sass_tool "${SGEMM_CUOBJDUMP}")
if(NOT _sass_tool)
  set(_sass_tool "cuobjdump-NOTFOUND")  # scripts/sass then explains how to get it
endif()

foreach(_number _stem IN ZIP_LISTS SGEMM_RUNG_NUMBERS SGEMM_RUNG_STEMS)  # cmake/ladder.cmake
  set(_test sass.${_stem})
  sgemm_python_test(${_test} "the SASS tests" ${PROJECT_SOURCE_DIR}/scripts/sass ${_number}
                    --binary $<TARGET_FILE:sgemm> --cuobjdump ${_sass_tool}
                    --expect ${_sass_expect})
  set_tests_properties(${_test} PROPERTIES LABELS "cpu;sass" TIMEOUT 120)
endforeach()

# The parsers behind scripts/sass, scripts/profile and scripts/docs-diffs, on fixtures
# (tests/data): cuobjdump -sass and -res-usage text, an ncu CSV export, doc markers.
sgemm_python_test(scripts.parsers "the scripts' tests" ${CMAKE_CURRENT_SOURCE_DIR}/scripts_test.py)
set_tests_properties(scripts.parsers PROPERTIES LABELS cpu TIMEOUT 60)
# The sgemm command lines of scripts/sanitize and scripts/profile parse (exit 3 without a GPU).
sgemm_python_test(scripts.commands "the scripts' tests"
                  ${CMAKE_CURRENT_SOURCE_DIR}/script_commands_test.py --binary $<TARGET_FILE:sgemm>)
set_tests_properties(scripts.commands PROPERTIES LABELS cpu TIMEOUT 120)
