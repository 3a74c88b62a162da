# cuobjdump, which the SASS tests (tests/sass.cmake) and scripts/sass run on the built binary.
# No GPU is needed. Looked for in the CUDA toolkit, then on PATH, then in build/tools/bin;
# when none has it (pip/conda toolkits, some CPU-only images) and SGEMM_FETCH_CUOBJDUMP is ON,
# scripts/get-cuobjdump fetches it there from Debian's CUDA package at configure time.
# Sets SGEMM_CUOBJDUMP (cache; -DSGEMM_CUOBJDUMP=/path/to/cuobjdump to choose another).
option(SGEMM_FETCH_CUOBJDUMP
       "Fetch cuobjdump into the build folder when the CUDA toolkit has none" ON)

set(_sgemm_hints ${CUDAToolkit_BIN_DIR})
if(CMAKE_CUDA_COMPILER)
  get_filename_component(_sgemm_nvcc_dir ${CMAKE_CUDA_COMPILER} DIRECTORY)
  list(APPEND _sgemm_hints ${_sgemm_nvcc_dir})
endif()
list(REMOVE_DUPLICATES _sgemm_hints)  # nvcc usually sits in the toolkit's bin: name it once
find_program(SGEMM_CUOBJDUMP cuobjdump
  HINTS ${_sgemm_hints}
  PATHS ${PROJECT_BINARY_DIR}/tools/bin
  DOC "cuobjdump for the SASS tests and scripts/sass")

if(NOT SGEMM_CUOBJDUMP AND SGEMM_FETCH_CUOBJDUMP)
  set(_sgemm_tools ${PROJECT_BINARY_DIR}/tools)
  list(JOIN _sgemm_hints ", " _sgemm_where)
  message(STATUS "cuobjdump: not in the CUDA toolkit (${_sgemm_where}) nor on PATH; "
                 "the SASS tests need it, so fetching it into ${_sgemm_tools} "
                 "(-DSGEMM_FETCH_CUOBJDUMP=OFF to skip)")
  execute_process(
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/../scripts/get-cuobjdump ${_sgemm_tools}
    RESULT_VARIABLE _sgemm_rc OUTPUT_VARIABLE _sgemm_out ERROR_VARIABLE _sgemm_err
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_sgemm_rc EQUAL 0 AND EXISTS "${_sgemm_out}")
    set(SGEMM_CUOBJDUMP ${_sgemm_out} CACHE FILEPATH
        "cuobjdump for the SASS tests and scripts/sass" FORCE)
    message(STATUS "cuobjdump: ${SGEMM_CUOBJDUMP}")
  else()
    message(WARNING "cuobjdump: fetching it failed, so the SASS tests will fail until one is "
                    "found (install a CUDA toolkit's cuobjdump and re-run cmake, or pass "
                    "-DSGEMM_CUOBJDUMP=/path/to/cuobjdump):\n${_sgemm_err}")
  endif()
elseif(NOT SGEMM_CUOBJDUMP)
  message(STATUS "cuobjdump: not found and SGEMM_FETCH_CUOBJDUMP is OFF; the SASS tests "
                 "will fail until -DSGEMM_CUOBJDUMP=/path/to/cuobjdump is given")
endif()
