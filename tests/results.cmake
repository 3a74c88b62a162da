# Results (included by tests/CMakeLists.txt):
#  - results.readme_table: the README's ladder table matches the committed results JSON;
#  - results.committed_plots: each committed results/<gpu>/table.md, and the data each
#    committed picture there carries, match its bench.json (scripts/plot --check; no matplotlib);
#  - results.scripts: scripts/plot's table, data and check, scripts/results-table, on a fixture;
#  - results.roofline: the README's picture of the ladder under the hardware's ceilings
#    (results/h200/roofline.svg) is what scripts/roofline draws from the committed data now;
#  - results.roofline_planted: a planted change to a rate, a spec or the moduli makes that
#    check fail and name it, and the picture is legible at 1:1 (tests/roofline_test.py);
#  - results.plot: scripts/plot's pictures, drawn by the Python scripts/plot would find with
#    matplotlib; Skipped, with the Pythons tried, when none can import it (the test exits 77:
#    SKIP_RETURN_CODE);
#  - bench.*: sgemm_bench's flags and messages (CPU), and a short sweep (GPU);
#  - best_rates.*: sgemm_best_rates --predict per GPU, and its --gpu usage errors (CPU).
set(_results "the results tests")
sgemm_python_test(results.readme_table "${_results}" ${PROJECT_SOURCE_DIR}/scripts/results-table
                  --check)
sgemm_python_test(results.committed_plots "${_results}" ${PROJECT_SOURCE_DIR}/scripts/plot --check)
sgemm_python_test(results.roofline "${_results}" ${PROJECT_SOURCE_DIR}/scripts/roofline --check)
sgemm_python_test(results.roofline_planted "${_results}"
                  ${CMAKE_CURRENT_SOURCE_DIR}/roofline_test.py)
sgemm_python_test(results.scripts "${_results}" ${CMAKE_CURRENT_SOURCE_DIR}/results_scripts_test.py)
sgemm_python_test(results.plot "${_results}" ${CMAKE_CURRENT_SOURCE_DIR}/results_scripts_test.py
                  --pictures)
set_tests_properties(results.plot PROPERTIES SKIP_RETURN_CODE 77)
set_tests_properties(results.readme_table results.committed_plots results.roofline
                     results.roofline_planted results.scripts results.plot
                     PROPERTIES LABELS cpu TIMEOUT 120)

# sgemm_bench as a user runs it: sgemm_bench_test(<name> <label> EXIT ... ARGS ... EXPECT ...)
# Without Google Benchmark (bench/ skipped) each test still shows, as skipped with the reason.
function(sgemm_bench_test name label)
  if(TARGET sgemm_bench)
    sgemm_expect_test(bench.${name} sgemm_bench ${label} ${ARGN})
  else()
    sgemm_skipped_test(bench.${name} ${label}
                       "Google Benchmark not found (Debian/Ubuntu: sudo apt-get install libbenchmark-dev)")
  endif()
endfunction()

# Listing names needs no GPU, so the flags that pick rungs and shapes are tested on any machine.
sgemm_bench_test(list_selected cpu EXIT 0
  ARGS --rungs=1,0 --mnk=256,512,128 --mnk=300x200x100 --benchmark_list_tests
  EXPECT sgemm/cublas/256x512x128 sgemm/rung:01_naive/256x512x128 sgemm/rung:01_naive/300x200x100)
sgemm_bench_test(list_default cpu EXIT 0 ARGS --benchmark_list_tests
  EXPECT sgemm/cublas/16384x16384x16384 sgemm/rung:01_naive/4097x4097x4097
         sgemm/cublas/512x16384x4096 sgemm/cublas/1024x1024x65536 ${rung_names})
sgemm_bench_test(list_filtered cpu EXIT 0
  ARGS --shapes=square --benchmark_filter=cublas/4096x --benchmark_list_tests
  EXPECT sgemm/cublas/4096x4096x4096)
sgemm_bench_test(list_operations cpu EXIT 0
  ARGS --rungs=0,15 --mnk=7,33,129 --layout=col --ops=TT --benchmark_list_tests
  EXPECT sgemm/cublas/7x33x129/col/TT sgemm/rung:15_every_shape_3xtf32/7x33x129/col/TT)
sgemm_bench_test(bad_ops cpu EXIT 2 ARGS --ops=XX EXPECT --ops XX)
sgemm_bench_test(help cpu EXIT 0 ARGS --help
  EXPECT --rungs --shapes --mnk --max-seconds-per-run --benchmark_filter "exit status:"
         "1  a benchmark failed its check" "2  bad usage" "3  no usable GPU")
sgemm_bench_test(unknown_rung cpu EXIT 2 ARGS --rungs=0,99 EXPECT 99)
sgemm_bench_test(bad_shape_set cpu EXIT 2 ARGS --shapes=round EXPECT round)
sgemm_bench_test(bad_mnk cpu EXIT 2 ARGS --mnk=64,0,64 EXPECT size)
sgemm_bench_test(shapes_and_mnk cpu EXIT 2 ARGS --shapes=square --mnk=64,64,64 EXPECT either)
sgemm_bench_test(bad_limit cpu EXIT 2 ARGS --max-seconds-per-run=-1 EXPECT max-seconds-per-run)
sgemm_bench_test(unknown_flag cpu EXIT 2 ARGS --bogus=1 EXPECT --bogus)
sgemm_bench_test(unknown_benchmark_flag cpu EXIT 2 ARGS --benchmark_bogus=1 EXPECT bogus)
# An output file that cannot be written is a runtime error (3), found before any GPU work.
sgemm_bench_test(json_unwritable cpu EXIT 3 ARGS --sizes=64 --json=/no/such/folder/out.json
  EXPECT "--json: cannot write")
sgemm_bench_test(benchmark_out_unwritable cpu EXIT 3 ARGS --benchmark_out=/no/such/folder/out.json
  EXPECT "--benchmark_out: cannot write")
sgemm_bench_test(no_gpu cpu EXIT 3 ENV CUDA_VISIBLE_DEVICES= ARGS --sizes=64
  EXPECT "no CUDA device")

# Column-major with op(A) = T: validated against cuBLAS with the same ops, then timed; the one
# call (rung 18), which runs on every GPU the build has code for.
sgemm_bench_test(gpu_operations gpu EXIT 0
  ARGS --rungs=0,18 --mnk=130,67,257 --mnk=1000,1000,1000 --layout=col --ops=TN ${quick_timing}
  EXPECT "130x67x257/col/TN" "vs cublas: exact PASS" pct_of_reference)
# A short real sweep: every rung validated and timed, a skip for time. Skipped without a GPU.
sgemm_bench_test(gpu_sweep gpu EXIT 0
  ARGS --mnk=128,128,128 --mnk=1000x1000x1000 --mnk=4097,130,33 --mnk=2048,2048,2048
       --max-seconds-per-run=0.0001 ${quick_timing}
  EXPECT "GFLOP/s" pct_of_reference "vs cublas: exact PASS" "vs cublas_tf32: exact PASS"
         "would take" ${rung_names})

# sgemm_best_rates --predict needs no GPU; --gpu names a table compiled in, and only with it.
sgemm_expect_test(best_rates.predict_per_gpu sgemm_best_rates cpu EXIT 0
  ARGS --predict "--gpu=NVIDIA H100 80GB HBM3" --mnk=8192x8192x8192
  EXPECT "M,N,K,chosen" "8192,8192,8192,")
sgemm_expect_test(best_rates.unknown_gpu sgemm_best_rates cpu EXIT 2
  ARGS --predict "--gpu=NVIDIA A100" EXPECT "--gpu" "NVIDIA H200")
sgemm_expect_test(best_rates.gpu_without_predict sgemm_best_rates cpu EXIT 2
  ARGS "--gpu=NVIDIA H200" EXPECT "--gpu requires --predict")
