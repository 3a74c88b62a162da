#!/usr/bin/env bash
# Does the tests' tiny case catch a tf32 tile that ignores values below 2^-114? One GPU call,
# after kernels.sh in the same build: the flags are switched off in a copy of the source, the
# named-kernel test must then fail for tf32_tiles; the source is restored.
source "$(dirname "$0")/../session_common.sh"
cp library/tf32_batched.cu "$W/keep.cu"
sed -i 's/= least < kTinyTwice - 1u;/= least < kTinyTwice - 1u \&\& threadIdx.x > 1024;/' library/tf32_batched.cu
grep -c 'threadIdx.x > 1024' library/tf32_batched.cu
step build_mutant 200 cmake --build "$B" -j --target gpu_batched_test
step mutant 200 "$B/tests/gpu_batched_test" --gtest_filter='*EveryKernel*'
grep -E "tf32_tiles|FAILED|PASSED|problem" "$W/mutant.txt" | head -8
cp "$W/keep.cu" library/tf32_batched.cu
