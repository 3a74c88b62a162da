// The one call as an XLA typed-FFI handler, for jax.jit (python/sgemm_ladder/jax.py registers
// it as the CUDA target "sgemm_ladder_matmul"): out = op(a) @ op(b) for row-major float32
// buffers of equal rank >= 2 whose leading dimensions (a batch) are equal, on XLA's stream.
// Built as libsgemm_jax_ffi.so (python/jax_ffi/CMakeLists.txt) against jaxlib's headers.
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "sgemm/sgemm_c.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

using Dims = ffi::Span<const int64_t>;

std::string shape_of(Dims dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}

ffi::Error invalid(std::string message) {
  return ffi::Error(ffi::ErrorCode::kInvalidArgument, "sgemm_ladder: " + message);
}

// The library's failure with its sentence: bad arguments (statuses 1 to 5) are the caller's,
// a workspace that XLA's allocator left no room for is exhaustion, the rest internal.
ffi::Error library_error(sgemm_status status) {
  const std::string message =
      std::string("sgemm_ladder: ") + sgemm_last_error() + " (" + sgemm_status_string(status) + ")";
  if (status >= SGEMM_STATUS_UNKNOWN_RUNG && status <= SGEMM_STATUS_TOO_LARGE)
    return ffi::Error(ffi::ErrorCode::kInvalidArgument, message);
  if (status == SGEMM_STATUS_NO_WORKSPACE)
    return ffi::Error(ffi::ErrorCode::kResourceExhausted, message);
  return ffi::Error(ffi::ErrorCode::kInternal, message);
}

ffi::Error Matmul(sgemm_stream stream, ffi::Buffer<ffi::F32> a, ffi::Buffer<ffi::F32> b,
                  ffi::ResultBuffer<ffi::F32> out, bool transpose_a, bool transpose_b) {
  const Dims da = a.dimensions(), db = b.dimensions(), dc = out->dimensions();
  const size_t rank = da.size();
  if (rank < 2 || db.size() != rank || dc.size() != rank)
    return invalid("a " + shape_of(da) + ", b " + shape_of(db) + " and out " + shape_of(dc) +
                   " must have one rank, 2 or more");
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (db[i] != da[i] || dc[i] != da[i])
      return invalid("the batch dimensions of a " + shape_of(da) + ", b " + shape_of(db) +
                     " and out " + shape_of(dc) + " differ");
    batch *= da[i];
  }
  // Row-major storage: a row of a is da[rank - 1] long whether or not it is transposed.
  const int64_t a_rows = da[rank - 2], a_cols = da[rank - 1];
  const int64_t b_rows = db[rank - 2], b_cols = db[rank - 1];
  const int64_t m = transpose_a ? a_cols : a_rows, k = transpose_a ? a_rows : a_cols;
  const int64_t n = transpose_b ? b_rows : b_cols, kb = transpose_b ? b_cols : b_rows;
  if (k != kb || dc[rank - 2] != m || dc[rank - 1] != n)
    return invalid("a " + shape_of(da) + (transpose_a ? " transposed" : "") + " times b " +
                   shape_of(db) + (transpose_b ? " transposed" : "") + " is no out " +
                   shape_of(dc));
  if (m == 0 || n == 0 || batch == 0) return ffi::Error::Success();  // out is empty
  for (int64_t v : {a_rows, a_cols, b_rows, b_cols, batch})
    if (v > INT_MAX) return invalid(std::to_string(v) + " does not fit the C ABI's int");

  float* c = out->typed_data();
  const float* pa = a.typed_data();
  const float* pb = b.typed_data();
  int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  int lda = static_cast<int>(a_cols), ldb = static_cast<int>(b_cols);
  long long stride_a = a_rows * a_cols, stride_b = b_rows * b_cols;
  float alpha = 1.f;
  sgemm_op op_a = transpose_a ? SGEMM_OP_T : SGEMM_OP_N;
  sgemm_op op_b = transpose_b ? SGEMM_OP_T : SGEMM_OP_N;
  if (k == 0) {
    // An empty sum: out = 0, which the library writes for alpha = 0 and beta = 0 without reading
    // A or B (out stands in for them, with a K of 1 that its leading dimensions allow).
    pa = pb = c;
    ki = 1, lda = 1, ldb = ni, stride_a = stride_b = 0, alpha = 0.f;
    op_a = op_b = SGEMM_OP_N;
  }
  // XLA runs the handler with its device's context current, on that device's stream, and its
  // buffers are that device's memory: the library need not ask CUDA about them. The mode is the
  // calling thread's, which may be a Python thread that also calls the package directly: the
  // default (checks) is put back after the call.
  sgemm_set_pointer_checks(SGEMM_CALLER_VOUCHES);
  const sgemm_status status =
      batch == 1 ? sgemm_gemm(SGEMM_ROW_MAJOR, op_a, op_b, mi, ni, ki, alpha, pa, lda, pb, ldb, 0.f,
                              c, ni, stream)
                 : sgemm_gemm_strided_batched(SGEMM_ROW_MAJOR, op_a, op_b, mi, ni, ki, alpha, pa,
                                              lda, stride_a, pb, ldb, stride_b, 0.f, c, ni, m * n,
                                              static_cast<int>(batch), stream);
  sgemm_set_pointer_checks(SGEMM_CHECK_POINTERS);
  return status == SGEMM_STATUS_OK ? ffi::Error::Success() : library_error(status);
}

}  // namespace

// sgemm_stream is cudaStream_t (struct CUstream_st*) without the CUDA headers.
XLA_FFI_DEFINE_HANDLER_SYMBOL(SgemmLadderMatmul, Matmul,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<sgemm_stream>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<bool>("transpose_a")
                                  .Attr<bool>("transpose_b"));
