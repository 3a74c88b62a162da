#!/usr/bin/env bash
# Rung 16's evidence on the final code, in one GPU call (carry .deps; about 6 minutes on an
# H200): every input distribution the generator makes (inputs_bench.sh: rungs 15 and 16 beside
# cuBLAS SGEMM, $OUT/rung16_inputs.json), the number of moduli (sgemm_moduli:
# $OUT/rung16_moduli.json) and Nsight Compute on the pre-pass and reconstruction kernels at
# 8192^3 ($OUT/ncu_prepass.txt).
#   experiments/rung16/final_code.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build sgemm sgemm_bench sgemm_moduli
step inputs 330 experiments/rung16/inputs_bench.sh
step moduli 120 sh -c "$B/sgemm_moduli > '$OUT/rung16_moduli.json'"
step ncu_prepass 120 ncu --clock-control none --section SpeedOfLight \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section Occupancy --section LaunchStats -k regex:"ozaki_int8_(row|column|predict|reconstruct)" \
  "$B/sgemm" 16 --sizes 8192 --check none --warmup 0 --reps 2 --block-ms 0
save
