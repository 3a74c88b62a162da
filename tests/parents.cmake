# Each rung names the rung it grew from (label `cpu;docs`):
#  - docs.parents: the parent column of kernels/ladder.inc is sane (an earlier rung; a change
#    of precision class only where the kernel file says so), scripts/diff N diffs from it, the
#    README's ladder table and the headers of docs 12-18 name it; prints each rung's changed
#    lines and comment share of scripts/diff N (tests/ladder_parents_test.py; builds nothing).
find_package(Python3 3.8 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME docs.parents
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/ladder_parents_test.py)
else()  # fail rather than vanish: CI must run it
  add_test(NAME docs.parents COMMAND ${CMAKE_COMMAND} -E echo
           "FAILED: docs.parents needs python3 (3.8 or newer), which cmake did not find")
  set_tests_properties(docs.parents PROPERTIES FAIL_REGULAR_EXPRESSION "FAILED")
endif()
set_tests_properties(docs.parents PROPERTIES LABELS "cpu;docs" TIMEOUT 120)
