/* The one call from C, through the C ABI (sgemm/sgemm_c.h) and libsgemm_ladder.so: a column-major
 * product with op(B) = B^T, checked element by element against FP32's componentwise bound with a
 * reference in double. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sgemm/sgemm_c.h"

enum { kNoGpu = 77 };

static int ok(cudaError_t err, const char* what) {
  if (err != cudaSuccess) fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
  return err == cudaSuccess;
}

int main(void) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device: nothing to run\n");
    return kNoGpu;
  }
  /* Column-major, as BLAS: C (m x n) = A (m x k) B^T, B stored n x k. */
  const int m = 300, n = 200, k = 129, lda = m, ldb = n, ldc = m;
  float* a = malloc(sizeof(float) * lda * k);
  float* b = malloc(sizeof(float) * ldb * k);
  float* c = malloc(sizeof(float) * ldc * n);
  srand(2026);
  for (int i = 0; i < lda * k; ++i) a[i] = 2.f * rand() / RAND_MAX - 1.f;
  for (int i = 0; i < ldb * k; ++i) b[i] = 2.f * rand() / RAND_MAX - 1.f;
  float *da = NULL, *db = NULL, *dc = NULL;
  if (!ok(cudaMalloc((void**)&da, sizeof(float) * lda * k), "cudaMalloc") ||
      !ok(cudaMalloc((void**)&db, sizeof(float) * ldb * k), "cudaMalloc") ||
      !ok(cudaMalloc((void**)&dc, sizeof(float) * ldc * n), "cudaMalloc") ||
      !ok(cudaMemcpy(da, a, sizeof(float) * lda * k, cudaMemcpyHostToDevice), "copy a") ||
      !ok(cudaMemcpy(db, b, sizeof(float) * ldb * k, cudaMemcpyHostToDevice), "copy b"))
    return 1;

  const sgemm_status status = sgemm_gemm(SGEMM_COL_MAJOR, SGEMM_OP_N, SGEMM_OP_T, m, n, k, 1.f, da,
                                         lda, db, ldb, 0.f, dc, ldc, NULL);
  if (status != SGEMM_STATUS_OK) {
    fprintf(stderr, "sgemm_gemm: %s: %s\n", sgemm_status_string(status), sgemm_last_error());
    return status == SGEMM_STATUS_UNSUPPORTED_GPU ? kNoGpu : 1;
  }
  if (!ok(cudaMemcpy(c, dc, sizeof(float) * ldc * n, cudaMemcpyDeviceToHost), "copy c")) return 1;

  const double u = ldexp(1.0, -24), gamma = k * u / (1 - k * u);
  long outside = 0;
  double worst = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double exact = 0, magnitude = 0;
      for (int p = 0; p < k; ++p) {
        const double x = (double)a[i + p * lda] * b[j + p * ldb];
        exact += x, magnitude += fabs(x);
      }
      const double error = fabs(c[i + j * ldc] - exact);
      outside += !(error <= gamma * magnitude);
      if (error / (u * magnitude) > worst) worst = error / (u * magnitude);
    }
  printf("sgemm %s, col-major N T %d x %d x %d: largest error %.2f u; %ld outside the bound\n",
         sgemm_version(), m, n, k, worst, outside);
  cudaFree(da), cudaFree(db), cudaFree(dc);
  free(a), free(b), free(c);
  return outside == 0 ? 0 : 1;
}
