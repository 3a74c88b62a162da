// The library API: launch() of a rung, in the rungs' own form or BLAS's general one, down the
// fallback chain (dispatch.h), and the one call, gemm(). Argument checks: arguments.h;
// statuses: status.h.
#include <cuda_runtime.h>

#include <string>

#include "arguments.h"          // check_problem, unknown_rung
#include "dispatch.h"           // the fallback chain
#include "messages.h"           // say()
#include "registry.h"           // rung_info(RungId::best): the one call's rung
#include "row_major.h"          // BLAS's general form as the rungs' own problem
#include "runtime/workspace.h"  // the transposed copies' workspace
#include "scale_c.h"            // C = beta * C for alpha == 0
#include "status.h"             // a launch's answer as a Status and a sentence
#include "transpose.h"          // the transposed copies

namespace sgemm {

Status launch(const RungInfo& rung, const Gemm& g, cudaStream_t stream, std::string* why) {
  return launch(rung, Operation{}, g, stream, why);
}

Status launch(const RungInfo& rung, const Operation& operation, const Gemm& g, cudaStream_t stream,
              std::string* why) {
  Status s = check_problem(operation, g, stream, why);
  if (s != Status::ok) return s;
  // C as it lies in memory: M x N row-major, or the row-major view of its transpose.
  const Extent c = stored_extent(operation.layout, Op::N, g.M, g.N);
  if (g.alpha == 0.f) {  // BLAS: A and B are not read (scale_c.h)
    const cudaError_t err = launch_scale_c(c.lines, c.length, g.beta, g.C, g.ldc, stream);
    return status_of(err, rung, rung, why);
  }
  // The rungs take row-major N, N: an operand that is transposed in row-major terms is copied,
  // transposed, into the workspace (one allocation for both), which goes back, stream-ordered,
  // when `copies` goes out of scope, after the rung's kernels are queued.
  const RowMajorView view = row_major_view(operation, g);
  Gemm nn = view.gemm;
  const size_t a_floats = view.a == Op::T ? static_cast<size_t>(nn.M) * padded(nn.K) : 0;
  const size_t b_floats = view.b == Op::T ? static_cast<size_t>(nn.K) * padded(nn.N) : 0;
  runtime::Workspace<float> copies(a_floats + b_floats, stream);
  if (copies.error() != cudaSuccess) {
    // A short workspace leaves no error pending (runtime/workspace.h); another failure is reported
    // here.
    if (copies.error() != cudaErrorMemoryAllocation) cudaGetLastError();
    if (why)
      *why = std::string("the transposed copies of the operands (") + operation.str() + ", " +
             std::to_string((a_floats + b_floats) * sizeof(float)) +
             " bytes) do not fit the workspace: " +
             (copies.error() == cudaErrorMemoryAllocation
                  ? say("its limit is %lld bytes (sgemm::set_workspace_limit)",
                        static_cast<long long>(workspace_limit()))
                  : std::string(cudaGetErrorString(copies.error())));
    return copies.error() == cudaErrorMemoryAllocation ? Status::no_workspace : Status::cuda_error;
  }
  float* at = copies.get();
  cudaError_t err = cudaSuccess;
  if (view.a == Op::T) {  // stored K x M: copied M x K
    err = runtime::transpose(nn.A, nn.K, nn.M, nn.lda, at, padded(nn.K), stream);
    nn.A = at, nn.lda = padded(nn.K), at += a_floats;
  }
  if (err == cudaSuccess && view.b == Op::T) {  // stored N x K: copied K x N
    err = runtime::transpose(nn.B, nn.N, nn.K, nn.ldb, at, padded(nn.N), stream);
    nn.B = at, nn.ldb = padded(nn.N);
  }
  if (err != cudaSuccess) {
    cudaGetLastError();  // reported here, once
    if (why) *why = std::string("transposing an operand failed: ") + cudaGetErrorString(err);
    return Status::cuda_error;
  }
  const RungInfo* last = &rung;
  const runtime::LaunchAnswer answer = runtime::launch_chain(rung, nn, stream, &last, true);
  return status_of(answer, rung, *last, why);
}

Status launch(int rung, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
              int ldb, float beta, float* C, int ldc, cudaStream_t stream, std::string* why) {
  const RungInfo* info = find_rung(rung);
  if (info == nullptr) return unknown_rung(rung, why);
  return launch(*info, Gemm{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, stream, why);
}

// The ladder's best FP32-accurate rung: rung 18, which chooses among the others per problem.
const RungInfo& one_call_rung() { return rung_info(RungId::best); }

Status gemm(Layout layout, Op opA, Op opB, int M, int N, int K, float alpha, const float* A,
            int lda, const float* B, int ldb, float beta, float* C, int ldc, cudaStream_t stream,
            std::string* why) {
  return launch(one_call_rung(), Operation{layout, opA, opB},
                Gemm{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, stream, why);
}

const char* to_string(Layout layout) { return layout == Layout::col_major ? "col" : "row"; }
const char* to_string(Op op) { return op == Op::T ? "T" : "N"; }

std::string Operation::str() const {
  return std::string(to_string(layout)) + " " + to_string(a) + to_string(b);
}

}  // namespace sgemm
