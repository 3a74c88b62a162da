#!/usr/bin/env bash
# Are rungs 14 and 15 bound by L2's bandwidth, not by the tensor cores? Napkin math: a 128 x 128
# tile with BK = 32 reads 64 KiB of split operands (A and Bt, hi and lo) per 3 x 128 x 128 x 32
# TF32 multiply-adds; at the tensor cores' rate (about 1024 TF32 multiply-adds a clock an SM)
# that is about 43 bytes a clock an SM, 9.9 TB/s over 132 SMs at 1.755 GHz, above what L2
# serves. If so, a cluster of two blocks that share A's tile through TMA multicast (or B's, or
# both in 2 x 2) cuts L2's reads by a quarter (a half), the lever for issue 37's geometric
# mean. Against it: at 8192^3 rung 15's 117 TFLOP/s of FP32 work are 351 TFLOP/s of TF32
# products, where cuBLAS TF32 itself runs 340-410 at the power cap, so the gain may be small
# unless the shorter trips save power too. One GPU call: Nsight Compute's throughput sections on the GEMM kernels of rungs 14 and
# 15 at 4096^3 and 8192^3 (L2 and DRAM throughput, the tensor pipe's share, stall reasons).
#   experiments/rung15/l2_bound.sh
source "$(dirname "$0")/../session_common.sh"
configure_and_build sgemm
step ncu_l2 400 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section ComputeWorkloadAnalysis --section WarpStateStats -k regex:"sgemm_(wgmma|every_shape)_3xtf32" \
  $B/sgemm 14 15 --sizes 4096,8192 --check none --warmup 0 --reps 2 --block-ms 0
