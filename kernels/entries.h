// What a rung offers beyond its launcher (launchers.h), to the tools, the tests, the experiments
// and another rung: a rung's choice forced (a tile, a path, a number of slices or moduli, the
// Ozaki bound plane), whatever its own rule would pick, and rung 15 on part of C, which rung 16's
// slow path runs. Declared here once; each is defined in the rung's kernel file, which includes
// this header, so that a definition that drifts from its declaration does not compile. Like the
// launchers, each queues work on `stream` for arguments the library has already checked
// (sgemm/sgemm.h: check_arguments); none follows kernels/fallbacks.inc.
#pragma once

#include <cuda_runtime_api.h>

#include "runtime/launch_answer.h"  // LaunchAnswer

namespace sgemm {
struct Gemm;
}  // namespace sgemm
namespace sgemm::runtime {
struct Batch;  // runtime/batch.h
}  // namespace sgemm::runtime

// Rung 11 (kernels/11_every_shape.cu), for scripts/autotune and experiments/rung11: tile
// `config` of its table with K cut into `slices`.
namespace sgemm::every_shape {
cudaError_t launch_config(int config, int slices, int M, int N, int K, float alpha, const float* A,
                          int lda, const float* B, int ldb, float beta, float* C, int ldc,
                          cudaStream_t stream);
}  // namespace sgemm::every_shape

// Rung 13 (kernels/13_mma_3xtf32.cu): tile `config` (0 to config_count() - 1) of its list,
// whatever the GPU's shared memory would pick; and that pick, for a GPU whose blocks may opt in
// to `blockBytes` of shared memory and whose SMs hold `smBytes` (-1: none of the tiles fits).
namespace sgemm::mma_3xtf32 {
int config_count();
int tile_config_for(int blockBytes, int smBytes);
cudaError_t launch_config(int config, const Gemm& gemm, cudaStream_t stream);
}  // namespace sgemm::mma_3xtf32

// Rung 15 (kernels/15_every_shape_3xtf32.cu): `path` 0 the fused kernel, 1 rung 14's pre-pass
// path, with `slices` slices of K.
namespace sgemm::every_shape_3xtf32 {
cudaError_t launch_config(int path, int slices, const Gemm& gemm, cudaStream_t stream);
// On C's first limits[0] rows and limits[1] columns, read on the GPU when the kernels run: rung
// 16 queues it before it knows which elements its certificate will reject (its slow path).
cudaError_t launch_limited(const Gemm& gemm, const int* limits, cudaStream_t stream);
// `problems` problems of `gemm`'s shape (at most runtime::kMaxGridZ), problem 0's operands in
// `gemm`, the others as `batch` says, one slice of K each: from 256^3 a problem on the pre-pass
// path (one split of the whole batch, one main kernel over every problem's tiles), below in one
// launch of the fused kernel (the grid's z). K >= 16 (rung 15's own limit); sm_90a. The batched
// library calls run it.
cudaError_t launch_batched(const Gemm& gemm, const runtime::Batch& batch, int problems,
                           cudaStream_t stream);
// The same batch with its larger operand split by the main kernel, read through a tensor map of
// the whole batch (it crosses memory once; the pre-pass splits the other), C's narrow side the
// tile's columns, 64 of them where it is at most 64; where neither operand's pointers or strides
// allow the map, as launch_batched.
cudaError_t launch_batched_split_a(const Gemm& gemm, const runtime::Batch& batch, int problems,
                                   cudaStream_t stream);
}  // namespace sgemm::every_shape_3xtf32

// Rung 16 (kernels/16_ozaki_int8.cu): the Ozaki scheme with `count` moduli instead of the
// ladder's choice (bench/moduli.cpp: speed and error against the count); and the ladder's rung
// with its bound plane over half of K's tiles wherever K >= kHalfBoundMinK, not only where the
// sample leaves room (tests: the certificate stays sound, so the checks must pass it everywhere).
namespace sgemm::ozaki_int8 {
runtime::LaunchAnswer launch_moduli(int count, const Gemm& gemm, cudaStream_t stream);
runtime::LaunchAnswer launch_half_bound_always(const Gemm& gemm, cudaStream_t stream);
}  // namespace sgemm::ozaki_int8

// Rung 17 (kernels/17_cluster_splitk.cu): tile `config` (0 to config_count() - 1) of its table on
// a cluster of `ranks` blocks.
namespace sgemm::cluster_splitk {
int config_count();
cudaError_t launch_config(int config, int ranks, const Gemm& gemm, cudaStream_t stream);
// A batch as every_shape_3xtf32::launch_batched's, in one launch of the FFMA kernel (any K).
cudaError_t launch_batched(const Gemm& gemm, const runtime::Batch& batch, int problems,
                           cudaStream_t stream);
}  // namespace sgemm::cluster_splitk

// Rung 19 (kernels/19_cluster_3xtf32.cu): on a cluster of `ranks` blocks, whatever the launcher
// would pick; and a batch as every_shape_3xtf32::launch_batched's (K >= 16), the grid's z.
namespace sgemm::cluster_3xtf32 {
cudaError_t launch_config(int ranks, const Gemm& gemm, cudaStream_t stream);
cudaError_t launch_batched(const Gemm& gemm, const runtime::Batch& batch, int problems,
                           cudaStream_t stream);
}  // namespace sgemm::cluster_3xtf32
