# Help and bad usage (label `cpu`): every program the project builds (its executables, not the
# test executables below tests/, nor those marked SGEMM_TEST_PROGRAM) and every script in scripts/ answers --help with exit 0 and a
# flag it does not know with exit 2 and one line (tests/help_test.py), without a GPU, network
# or install. The programs are collected when the top-level CMakeLists.txt is done, so that
# each one defined after tests/ is read is included too.
function(sgemm_help_test python)
  set(programs "")
  set(dirs ${PROJECT_SOURCE_DIR})
  while(dirs)
    list(POP_FRONT dirs dir)
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    list(FILTER subdirs EXCLUDE REGEX "^${PROJECT_SOURCE_DIR}/tests(/|$)")
    list(APPEND dirs ${subdirs})
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      get_target_property(test_program ${target} SGEMM_TEST_PROGRAM)  # a test's, elsewhere
      if(type STREQUAL "EXECUTABLE" AND NOT test_program)
        list(APPEND programs --program $<TARGET_FILE:${target}>)
      endif()
    endforeach()
  endwhile()
  if(python)
    add_test(NAME help.every_program
             COMMAND ${python} ${PROJECT_SOURCE_DIR}/tests/help_test.py ${programs})
  else()  # fail rather than vanish: CI must run it
    add_test(NAME help.every_program COMMAND ${CMAKE_COMMAND} -E echo
             "FAILED: the help test needs python3 (3.8 or newer), which cmake did not find")
    set_tests_properties(help.every_program PROPERTIES FAIL_REGULAR_EXPRESSION "FAILED")
  endif()
  set_tests_properties(help.every_program PROPERTIES LABELS cpu TIMEOUT 300)
endfunction()
set(_python "")
if(Python3_Interpreter_FOUND)
  set(_python ${Python3_EXECUTABLE})
endif()
# The deferred call's arguments are evaluated when it runs, in the top directory: pass the
# Python found here as text.
cmake_language(EVAL CODE
  "cmake_language(DEFER DIRECTORY [[${PROJECT_SOURCE_DIR}]] CALL sgemm_help_test [[${_python}]])")
