# A fresh machine without CLI11 or nlohmann-json (cmake -P; the test deps.fetched): configures
# a clean copy of the source tree with both find_packages disabled, so that configuring must
# obtain them itself (cmake/dependencies.cmake), then builds `sgemm` and runs `sgemm --help`.
# Tests, bench and install are off in that build to keep it short, and it is for compute
# capability 8.0 alone: the headers are host code, and the sm_90a kernel files, most of the
# library's compile time, build without their kernels there (the top CMakeLists.txt). So it
# also builds the library and sgemm for 80, the other architecture the README offers.
#   -DROOT=source tree  -DWORK=scratch folder  -DARGS=generator and compilers  -DCONFIG=config
# Skipped, with the reasons, when no source could be reached at all (a machine offline); any
# other failure (a wrong SHA256, a file missing on the server) fails.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REPLACE ";" " " shown "${ARGN}")
  message("$ ${shown}\n${out}")
  set(output "${out}" PARENT_SCOPE)
  set(status "${status}" PARENT_SCOPE)
endfunction()

# What configuring reads, without build folders or anything else in the checkout.
file(REMOVE_RECURSE ${WORK})
foreach(entry CMakeLists.txt cmake include kernels library preload python runner bench tests scripts)
  file(COPY ${ROOT}/${entry} DESTINATION ${WORK}/src PATTERN __pycache__ EXCLUDE)
endforeach()

run(${CMAKE_COMMAND} -S ${WORK}/src -B ${WORK}/build --no-warn-unused-cli ${ARGS}
    -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
    -DSGEMM_BUILD_TESTS=OFF -DSGEMM_BUILD_BENCH=OFF -DSGEMM_INSTALL=OFF
    -DCMAKE_CUDA_ARCHITECTURES=80)
if(NOT status EQUAL 0)
  set(not_unreachable "SHA256 is|HTTP response code|holds no|cannot unpack")  # other failures
  if(output MATCHES "not obtained" AND NOT output MATCHES "${not_unreachable}")
    message("SGEMM-SKIPPED: no source of CLI11 and nlohmann-json could be reached (above)")
    return()
  endif()
  message(FATAL_ERROR "configuring without CLI11 and nlohmann-json installed failed")
endif()
if(NOT output MATCHES "-- Not installed, so downloaded [^\n]*: CLI11 [^\n]* and nlohmann-json ")
  message(FATAL_ERROR "expected one line saying where CLI11 and nlohmann-json came from")
endif()

if(CONFIG)
  set(config --config ${CONFIG})
endif()
run(${CMAKE_COMMAND} --build ${WORK}/build --target sgemm -j 2 ${config})
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building sgemm with the downloaded CLI11 and nlohmann-json failed")
endif()
set(program ${WORK}/build/sgemm)
if(NOT EXISTS ${program})
  set(program ${WORK}/build/${CONFIG}/sgemm)  # multi-config generators
endif()
run(${program} --help)
if(NOT status EQUAL 0 OR NOT output MATCHES "Usage: sgemm")
  message(FATAL_ERROR "the sgemm built with them does not print its usage")
endif()
