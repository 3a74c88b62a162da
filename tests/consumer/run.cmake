# Configures, builds and runs the consumer project beside this file (cmake -P; the tests
# consumer.package and consumer.subdirectory in tests/CMakeLists.txt).
#   -DMODE=package       first `cmake --install BUILD_DIR --prefix WORK/prefix`; the consumer
#                        finds it there with find_package
#   -DMODE=subdirectory  the consumer does add_subdirectory of this source tree
#   -DARGS=generator and compilers  -DWORK=scratch folder  -DCONFIG=build configuration
#   -DRUNGS=names the program must print; then `ctest -N` must find no tests in the build.
# In package mode the examples (examples/: C++ through sgemm::ladder, C through the C ABI and
# sgemm::ladder_shared) are built against the same prefix and run: each must exit 0, or 77
# where there is no GPU (a failure then if SGEMM_REQUIRE_GPU=1).
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REPLACE ";" " " shown "${ARGN}")
  message("$ ${shown}\n${out}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status})")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
if(CONFIG)
  set(config --config ${CONFIG})
endif()
if(MODE STREQUAL "package")
  run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix ${config})
  list(APPEND ARGS -DCMAKE_PREFIX_PATH=${WORK}/prefix)
else()
  cmake_path(GET CMAKE_CURRENT_LIST_DIR PARENT_PATH tests)
  cmake_path(GET tests PARENT_PATH root)
  list(APPEND ARGS -DSGEMM_SOURCE_DIR=${root})
endif()
run("configuring the consumer" ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${WORK}/build
    --no-warn-unused-cli ${ARGS})
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK}/build -j 2 ${config})

set(program ${WORK}/build/consumer)
if(NOT EXISTS ${program})
  set(program ${WORK}/build/${CONFIG}/consumer)  # multi-config generators
endif()
run("the consumer program" ${program})
foreach(text IN LISTS RUNGS ITEMS "bad size")
  string(FIND "${output}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected the consumer's output to contain '${text}'")
  endif()
endforeach()

run("ctest -N" ${CMAKE_CTEST_COMMAND} --test-dir ${WORK}/build -N)
if(NOT output MATCHES "Total Tests: 0")
  message(FATAL_ERROR "the consumer's build registered tests of the ladder")
endif()

if(MODE STREQUAL "package")
  cmake_path(GET CMAKE_CURRENT_LIST_DIR PARENT_PATH tests)
  cmake_path(GET tests PARENT_PATH root)
  run("configuring the examples" ${CMAKE_COMMAND} -S ${root}/examples -B ${WORK}/examples
      --no-warn-unused-cli ${ARGS})
  run("building the examples" ${CMAKE_COMMAND} --build ${WORK}/examples -j 2 ${config})
  foreach(example gemm gemm_c)
    set(program ${WORK}/examples/${example})
    if(NOT EXISTS ${program})
      set(program ${WORK}/examples/${CONFIG}/${example})
    endif()
    execute_process(COMMAND ${program} RESULT_VARIABLE status OUTPUT_VARIABLE out
                    ERROR_VARIABLE out)
    message("$ ${program}\n${out}")
    if(status EQUAL 77 AND NOT "$ENV{SGEMM_REQUIRE_GPU}" STREQUAL "1")
      message("${example}: no GPU here, so it ran nothing (exit 77)")
    elseif(NOT status EQUAL 0)
      message(FATAL_ERROR "the example ${example} failed (${status})")
    endif()
  endforeach()
endif()
