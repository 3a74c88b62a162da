# SASS tests (labels `cpu` and `sass`): what each rung's lesson relies on, checked in the
# machine code of the built `sgemm` (its kernel file's object, below) with cuobjdump; no GPU
# needed. One test per rung, named sass.NN_name; the expectations live in sass_expectations.json (one entry per rung), and
# every rung from 4 on is also checked for local memory (spills). Without cuobjdump the tests
# fail and say so (cmake/cuobjdump.cmake finds or fetches it).
#   ctest --test-dir build -L sass --output-on-failure
set(_sass_expect ${CMAKE_CURRENT_SOURCE_DIR}/sass_expectations.json)
set(_sass_tool "${SGEMM_CUOBJDUMP}")
if(NOT _sass_tool)
  set(_sass_tool "cuobjdump-NOTFOUND")  # scripts/sass then explains how to get it
endif()

# Each rung's test reads the object file of its kernel file, the very machine code that sgemm
# links (no device linking: the object's SASS is copied into sgemm as it is): cuobjdump on one
# object takes about a second, on all of sgemm (16 MB) 2-10 s a test (1.9 minutes of CPU for
# the 18 tests). sgemm itself where the object cannot be named: a multi-config generator, a
# kernel file with no kernel of its own (rung 18, which the test checks in sgemm), an sm_90a
# file built without its kernels, or one that the top CMakeLists.txt moves to a target of its
# own for architectures below 80.
get_property(_sass_multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
foreach(_number _stem _source IN ZIP_LISTS SGEMM_RUNG_NUMBERS SGEMM_RUNG_STEMS
                                           SGEMM_KERNEL_SOURCES)  # cmake/ladder.cmake
  set(_test sass.${_stem})
  set(_binary $<TARGET_FILE:sgemm>)
  set(_target sgemm_ladder_objects)
  if(_source IN_LIST SGEMM_SM90A_SOURCES)
    set(_target sgemm_ladder_sm90a)
    if(NOT SGEMM_SM90A_BUILT)
      set(_target "")
    endif()
  elseif(TARGET sgemm_ladder_sm80)
    set(_target "")
  endif()
  file(STRINGS ${_source} _sass_kernels REGEX "__global__" LIMIT_COUNT 1)
  if(_target AND _sass_kernels AND NOT _sass_multi_config)
    cmake_path(RELATIVE_PATH _source BASE_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _rel)
    set(_binary
        ${PROJECT_BINARY_DIR}/CMakeFiles/${_target}.dir/${_rel}${CMAKE_CUDA_OUTPUT_EXTENSION})
  endif()
  sgemm_python_test(${_test} "the SASS tests" ${PROJECT_SOURCE_DIR}/scripts/sass ${_number}
                    --binary ${_binary} --cuobjdump ${_sass_tool} --expect ${_sass_expect})
  set_tests_properties(${_test} PROPERTIES LABELS "cpu;sass" TIMEOUT 120)
endforeach()

# sass.facts: the SASS facts the docs cite (results/sass/sm_90.json, through scripts/docs-facts'
# fact:sass) are this build's SASS, count for count; skipped (77) when this build's nvcc is not
# the one that wrote them, whose SASS would differ anyway. scripts/sass --write-facts rewrites them.
sgemm_python_test(sass.facts "the SASS tests" ${PROJECT_SOURCE_DIR}/scripts/sass
                  --binary $<TARGET_FILE:sgemm> --cuobjdump ${_sass_tool}
                  --facts ${PROJECT_SOURCE_DIR}/results/sass/sm_90.json
                  --nvcc-version ${CMAKE_CUDA_COMPILER_VERSION})
set_tests_properties(sass.facts PROPERTIES LABELS "cpu;sass" TIMEOUT 120 SKIP_RETURN_CODE 77)

# The parsers behind scripts/sass, scripts/profile and scripts/docs-diffs, on fixtures
# (tests/data): cuobjdump -sass and -res-usage text, an ncu CSV export, doc markers.
sgemm_python_test(scripts.parsers "the scripts' tests" ${CMAKE_CURRENT_SOURCE_DIR}/scripts_test.py)
set_tests_properties(scripts.parsers PROPERTIES LABELS cpu TIMEOUT 60)
# The sgemm command lines of scripts/sanitize and scripts/profile parse (exit 3 without a GPU).
sgemm_python_test(scripts.commands "the scripts' tests"
                  ${CMAKE_CURRENT_SOURCE_DIR}/script_commands_test.py --binary $<TARGET_FILE:sgemm>)
set_tests_properties(scripts.commands PROPERTIES LABELS cpu TIMEOUT 120)
