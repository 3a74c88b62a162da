# Docs in step with the code (label `cpu`): every docs/NN_name.md exists, embeds its rung's
# diff between <!-- diff:begin --> / <!-- diff:end --> markers, and the embedded hunks still
# match the kernel files. scripts/docs-diffs regenerates them; this test runs its --check.
find_package(Python3 3.8 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME docs.diffs_in_step
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/docs-diffs --check)
else()
  add_test(NAME docs.diffs_in_step COMMAND ${CMAKE_COMMAND} -E echo
           "FAILED: the docs test needs python3 (3.8 or newer), which cmake did not find")
  set_tests_properties(docs.diffs_in_step PROPERTIES FAIL_REGULAR_EXPRESSION "FAILED")
endif()
set_tests_properties(docs.diffs_in_step PROPERTIES LABELS "cpu;docs" TIMEOUT 60)
