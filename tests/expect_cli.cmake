# Runs a command-line program and checks its exit status and output (cmake -P script).
#   -DPROGRAM=path  -DARGS=a;b  -DENV=VAR=value;...  -DEXIT=0|2|3|fail  -DEXPECT=text;...  -DGPU=1
# EXIT is the exit status the program must end with (0 ok, 1 a check failed, 2 bad usage, 3 a
# runtime error: sgemm --help), or `fail` for any non-zero one (a compiler's). A non-zero exit
# must come with a message; a crash (a signal) fails the test, as it must never be how bad input
# ends. An argument written <empty> in ARGS is passed as an empty argument. Each EXPECT text
# must appear in stdout+stderr, ignoring case.
# GPU=1: a run that says it found no usable GPU is a skip (the test prints SGEMM-SKIPPED,
# which its SKIP_REGULAR_EXPRESSION matches), or a failure when SGEMM_REQUIRE_GPU=1.
if(NOT PROGRAM OR "${EXIT}" STREQUAL "")
  message(FATAL_ERROR "expect_cli.cmake: PROGRAM and EXIT are required")
endif()

set(command ${PROGRAM} ${ARGS})
if(ENV)
  set(command ${CMAKE_COMMAND} -E env ${ENV} ${command})
endif()
string(REPLACE ";" " " shown "${ENV} ${PROGRAM} ${ARGS}")
# Each argument as a bracket argument, so that an empty one reaches the program too.
set(call "execute_process(COMMAND")
foreach(arg IN LISTS command)
  if(arg STREQUAL "<empty>")
    set(arg "")
  endif()
  string(APPEND call " [==[${arg}]==]")
endforeach()
cmake_language(EVAL CODE "${call} RESULT_VARIABLE status OUTPUT_VARIABLE out "
                         "ERROR_VARIABLE err TIMEOUT 100)")
set(output "${out}${err}")
message("$ ${shown}\n${output}[exit status: ${status}]")

# The sentences of no_gpu_reason() in runner/device.cu.
set(no_gpu "no CUDA device|is older than the CUDA runtime|CUDA could not start|the GPU is busy")
if(GPU AND NOT status EQUAL 0 AND output MATCHES "(${no_gpu})")
  if("$ENV{SGEMM_REQUIRE_GPU}" STREQUAL "1")
    message(FATAL_ERROR "SGEMM_REQUIRE_GPU=1, but the program found no usable GPU")
  endif()
  message("SGEMM-SKIPPED: no usable GPU (see the message above)")
  return()
endif()

if(NOT status MATCHES "^[0-9]+$")
  message(FATAL_ERROR "expected an exit status, but the program ended with: ${status}")
endif()
if(EXIT STREQUAL "fail" AND status EQUAL 0)
  message(FATAL_ERROR "expected a non-zero exit status, got 0")
elseif(NOT EXIT STREQUAL "fail" AND NOT status EQUAL EXIT)
  message(FATAL_ERROR "expected exit status ${EXIT}, got ${status}")
elseif(NOT status EQUAL 0 AND output STREQUAL "")
  message(FATAL_ERROR "expected a message naming the problem, got no output")
endif()

string(TOLOWER "${output}" output_lower)
foreach(text IN LISTS EXPECT)
  string(TOLOWER "${text}" text_lower)
  string(FIND "${output_lower}" "${text_lower}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected the output to contain '${text}'")
  endif()
endforeach()
