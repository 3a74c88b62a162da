# One label per rung, rungNN (two digits, so that -L rung01 is rung 1 alone), on every test
# whose name holds the rung's file stem NN_name (cmake/ladder.cmake): its GPU tests, its SASS
# test, ... Added to the labels each test already has (cpu or gpu, ...):
#   ctest --test-dir build -L rung16          # every test of rung 16
#   ctest --test-dir build -L cpu             # the quick host tests (no GPU, no network)
#   ctest --test-dir build -L slow            # host tests that build again or download
# Included after every other tests/*.cmake. Tests registered at configure time get the label
# here; GoogleTest's tests are discovered when ctest runs (DISCOVERY_MODE PRE_TEST), so a
# ctest include file, read after the discovery's, labels those (set_tests_properties there
# adds labels to the ones a test has).
set(_label_rungs "")
foreach(_number _stem IN ZIP_LISTS SGEMM_RUNG_NUMBERS SGEMM_RUNG_STEMS)
  string(SUBSTRING ${_stem} 0 2 _nn)
  list(APPEND _label_rungs "${_stem}=rung${_nn}")
endforeach()
set(_label_name_regex "(^|[/._])@STEM@($|[/._])")

get_property(_label_tests DIRECTORY PROPERTY TESTS)
foreach(_test IN LISTS _label_tests)
  foreach(_pair IN LISTS _label_rungs)
    string(REPLACE "=" ";" _pair ${_pair})
    list(GET _pair 0 _stem)
    list(GET _pair 1 _label)
    string(REPLACE "@STEM@" ${_stem} _regex ${_label_name_regex})
    if(_test MATCHES "${_regex}")
      set_property(TEST ${_test} APPEND PROPERTY LABELS ${_label})
    endif()
  endforeach()
endforeach()

# The GoogleTest executables: gtest_discover_tests lists each one's tests in <target>_TESTS.
get_property(_label_targets DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)
set(_label_file ${CMAKE_CURRENT_BINARY_DIR}/rung_labels.cmake)
file(WRITE ${_label_file} "# Written by tests/labels.cmake: a rung's label on its GoogleTest tests.\n")
foreach(_target IN LISTS _label_targets)
  get_target_property(_type ${_target} TYPE)
  if(NOT _type STREQUAL "EXECUTABLE")
    continue()
  endif()
  file(APPEND ${_label_file} "foreach(test IN LISTS ${_target}_TESTS)\n")
  foreach(_pair IN LISTS _label_rungs)
    string(REPLACE "=" ";" _pair ${_pair})
    list(GET _pair 0 _stem)
    list(GET _pair 1 _label)
    string(REPLACE "@STEM@" ${_stem} _regex ${_label_name_regex})
    file(APPEND ${_label_file} "  if(test MATCHES \"${_regex}\")\n"
                               "    set_tests_properties(\${test} PROPERTIES LABELS ${_label})\n"
                               "  endif()\n")
  endforeach()
  file(APPEND ${_label_file} "endforeach()\n")
endforeach()
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${_label_file})

# The README's counts of tests by label (<!-- tests:NAME --> markers), from ctest's own list of
# this build (scripts/test-counts --check): a build that lacks some tests (GoogleTest, Google
# Benchmark, clang-format or sm_90a missing) counts otherwise and reports the test as skipped.
sgemm_python_test(docs.test_counts "the test counts" ${PROJECT_SOURCE_DIR}/scripts/test-counts
                  --check --build ${PROJECT_BINARY_DIR} --ctest ${CMAKE_CTEST_COMMAND})
if(Python3_Interpreter_FOUND)
  set_tests_properties(docs.test_counts PROPERTIES SKIP_REGULAR_EXPRESSION "SGEMM-SKIPPED")
endif()
set_tests_properties(docs.test_counts PROPERTIES LABELS "cpu;docs" TIMEOUT 120)
