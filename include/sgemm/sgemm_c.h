/* The C ABI of the SGEMM ladder: the one call (FP32-accurate C = alpha op(A) op(B) + beta C on
 * the GPU), its batched forms, the rungs, and each failure's status and sentence, for languages
 * and programs that cannot use the C++ API (include/sgemm/sgemm.h): Python through ctypes, a
 * plugin, the preload library. Built into the shared library libsgemm_ladder.so (CMake target
 * sgemm::ladder_shared) and the static one; every function forwards to the C++ API and never
 * throws.
 *
 * Conventions, as the C++ API's and BLAS's: M, N, K are those of C = op(A) op(B); the leading
 * dimensions those of the matrices as stored (row-major: lda >= K for op N, column-major:
 * lda >= M, ...); beta == 0 means C is not read; alpha == 0 means A and B are not read. Every
 * call is asynchronous on `stream` (NULL: the default stream) of the current device, which A, B
 * and C belong to, and may be captured in a CUDA graph. A call that fails queues nothing, leaves
 * no CUDA error pending, and keeps its sentence for sgemm_last_error() on the calling thread. */
#ifndef SGEMM_SGEMM_C_H_
#define SGEMM_SGEMM_C_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A cudaStream_t, without the CUDA headers. */
typedef struct CUstream_st* sgemm_stream;

/* As sgemm::Status, value for value. */
typedef enum sgemm_status {
  SGEMM_STATUS_OK = 0,
  SGEMM_STATUS_UNKNOWN_RUNG = 1,    /* no rung with that number */
  SGEMM_STATUS_BAD_SIZE = 2,        /* M, N, K < 1 (or > the limit), or a negative batch */
  SGEMM_STATUS_BAD_LEADING_DIM = 3, /* a leading dimension below BLAS's rule, or a bad stride */
  SGEMM_STATUS_BAD_POINTER = 4,     /* null, misaligned, not device memory, another device's */
  SGEMM_STATUS_TOO_LARGE = 5,       /* an element offset past the kernels' 32-bit index math */
  SGEMM_STATUS_UNSUPPORTED_GPU = 6, /* no kernel for this GPU in the build */
  SGEMM_STATUS_NO_WORKSPACE = 7,    /* the workspace cannot hold what the call needs */
  SGEMM_STATUS_CUDA_ERROR = 8       /* a CUDA call failed; the sentence names the error */
} sgemm_status;

typedef enum sgemm_layout { SGEMM_ROW_MAJOR = 0, SGEMM_COL_MAJOR = 1 } sgemm_layout;
typedef enum sgemm_op { SGEMM_OP_N = 0, SGEMM_OP_T = 1 } sgemm_op;

/* The one call (sgemm::gemm). A layout or op that is none of the values above is
 * SGEMM_STATUS_BAD_SIZE, its sentence naming the argument (for the batched forms too). */
sgemm_status sgemm_gemm(sgemm_layout layout, sgemm_op op_a, sgemm_op op_b, int m, int n, int k,
                        float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                        float* c, int ldc, sgemm_stream stream);

/* `batch` problems of one shape, the i-th at a + i stride_a, b + i stride_b, c + i stride_c
 * (elements; a stride of 0 shares that operand among the problems; C's problems must not
 * overlap), as cublasSgemmStridedBatched. batch == 0 does nothing. */
sgemm_status sgemm_gemm_strided_batched(sgemm_layout layout, sgemm_op op_a, sgemm_op op_b, int m,
                                        int n, int k, float alpha, const float* a, int lda,
                                        long long stride_a, const float* b, int ldb,
                                        long long stride_b, float beta, float* c, int ldc,
                                        long long stride_c, int batch, sgemm_stream stream);

/* The same with arrays of `batch` pointers, the arrays themselves in device memory, as
 * cublasSgemmBatched. */
sgemm_status sgemm_gemm_batched(sgemm_layout layout, sgemm_op op_a, sgemm_op op_b, int m, int n,
                                int k, float alpha, const float* const* a_array, int lda,
                                const float* const* b_array, int ldb, float beta,
                                float* const* c_array, int ldc, int batch, sgemm_stream stream);

/* One rung on its own problem (row-major, op N, N), as sgemm::launch: for the ladder's readers. */
sgemm_status sgemm_launch(int rung, int m, int n, int k, float alpha, const float* a, int lda,
                          const float* b, int ldb, float beta, float* c, int ldc,
                          sgemm_stream stream);

/* How much the calling thread's calls ask CUDA about their pointers. SGEMM_CHECK_POINTERS (the
 * default): each pointer's memory and device, and the stream's device, a few microseconds a
 * call. SGEMM_CALLER_VOUCHES: the caller vouches that A, B and C are device memory of the
 * current device and the stream is that device's (a framework that knows its arrays' devices);
 * sizes, leading dimensions, strides, null and alignment are still checked. */
typedef enum sgemm_pointer_checks {
  SGEMM_CHECK_POINTERS = 0,
  SGEMM_CALLER_VOUCHES = 1
} sgemm_pointer_checks;
void sgemm_set_pointer_checks(sgemm_pointer_checks checks);

/* The sentence of the calling thread's last call that failed ("" after one that succeeded),
 * e.g. "lda = 7 is smaller than K = 8". Valid until the thread's next call. */
const char* sgemm_last_error(void);
/* "ok", "bad size", ... (sgemm::to_string). */
const char* sgemm_status_string(sgemm_status status);

/* The rungs, in ladder order: their count, and the number, name and summary of the i-th (an
 * index outside 0 .. count - 1: -1, NULL, NULL). */
int sgemm_rung_count(void);
int sgemm_rung_number(int index);
const char* sgemm_rung_name(int index);
const char* sgemm_rung_summary(int index);
/* The rung the one call runs (18). */
int sgemm_one_call_rung(void);

/* The workspace (sgemm::workspace_limit ...), bytes, on the current device. */
size_t sgemm_workspace_limit(void);
void sgemm_set_workspace_limit(size_t bytes);
sgemm_status sgemm_release_workspace(void);

/* "0.1.0": the library's version. */
const char* sgemm_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SGEMM_SGEMM_C_H_ */
