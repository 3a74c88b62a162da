# Runs a whole GoogleTest executable as one ctest test (cmake -P; tests/CMakeLists.txt, GPU
# executables where SGEMM_GPU_TESTS is `suite`, the default on a machine without a GPU).
#   -DPROGRAM=path of the GoogleTest executable
# Passes when the executable exits with 0 and at least one of its tests passed. Reports as
# skipped (prints SGEMM-SKIPPED, which the test's SKIP_REGULAR_EXPRESSION matches) when it
# exits with 0 and every test skipped: a machine without a GPU, with the first reason given.
# Fails on any other outcome: a failed test (SGEMM_REQUIRE_GPU=1 without a GPU is one,
# tests/gpu_support.h), a crash, or no summary. Only the summary is printed unless it fails.
if(NOT PROGRAM)
  message(FATAL_ERROR "gtest_suite.cmake: PROGRAM is required")
endif()
execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)

string(REGEX MATCH "\\[  PASSED  \\] ([0-9]+) tests?[.]" passed_line "${out}")
set(passed "${CMAKE_MATCH_1}")
set(skipped 0)
if(out MATCHES "\\[  SKIPPED \\] ([0-9]+) tests?, listed below")
  set(skipped "${CMAKE_MATCH_1}")
endif()
string(REGEX MATCH "\\[==========\\] [0-9]+ tests? from [0-9]+ test suites? ran[^\n]*" ran "${out}")

if(NOT status EQUAL 0 OR passed STREQUAL "")
  message("${out}")
  message(FATAL_ERROR "${PROGRAM} ended with ${status}: a GoogleTest test failed, or it crashed "
                      "(its output is above)")
endif()
message("${ran}\n${passed_line}\nskipped: ${skipped}")
if(passed EQUAL 0 AND skipped EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ran no test")
elseif(passed EQUAL 0)
  # The first skip's reason: GoogleTest prints it on the line after "file:line: Skipped".
  set(why "")
  if(out MATCHES ": Skipped\n([^\n]+)")
    set(why "${CMAKE_MATCH_1}")
  endif()
  message("SGEMM-SKIPPED: all ${skipped} tests of ${PROGRAM} skipped: ${why}")
endif()
