// CUDA graphs: the one call (sgemm::gemm) and each rung it runs, captured on a stream into a
// graph and replayed, give C bitwise equal to a direct call, on every path the one call takes:
// rungs 11, 15, 16 (its integer path; its slow path on gathered rows, on gathered columns, and
// below K = 16; the whole problem handed to rung 15) and 17, the transposed copies of op(A) and
// op(B), a fallback (K below 16), and rung 13's slices (the one call's path off Hopper).
// Each capture comes first in its process (ctest runs every test alone), so that the library's
// one-time setup happens inside it. The graph stays valid after the workspace is given back and
// other calls have used it, and replayed on new values in the same buffers it answers as a direct
// call on them does: rung 16 decides on the device. The captures are in
// cudaStreamCaptureModeGlobal, which fails on any call that may synchronize, from any thread: the
// one call makes none. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gpu_support.h"
#include "sgemm/sgemm.h"

namespace sgemm::testing {
namespace {

// How one operand is filled (device.h: Fill), and the fill's parameter.
struct Values {
  Fill fill = Fill::uniform;
  float param = 0.f;
};

struct Case {
  const char* name;
  int rung;  // 0: the one call, sgemm::gemm; else sgemm::launch of that rung
  Operation op;
  int M, N, K;
  float beta;
  Values a, b;    // the captured call's inputs
  Values a2, b2;  // the values the replay after the capture meets (the same buffers)
};

const Operation kRowNN{};
const Values kUniform{};
const Values kHeavyRow{Fill::scaled_row, 20.f};        // one row of A times 2^20
const Values kHeavyColumn{Fill::scaled_column, 20.f};  // one column of B times 2^20
const Values kBigColumn{Fill::big_column, 0.f};        // every row of A holds a 2^30
const Values kExponents{Fill::exponents, 16.f};        // +-[1, 2) 2^e, e in [-16, 16]
const Values kWideExponents{Fill::exponents, 120.f};   // e in [-120, 120]: some flagged

std::vector<Case> cases() {
  const Operation colTN{Layout::col_major, Op::T, Op::N}, rowNT{Layout::row_major, Op::N, Op::T};
  return {
      // The one call: rung 17's sizes, a large cube (rung 15 or 16), transposed copies, and a
      // K that the 3xTF32 rungs hand on.
      {"one_call_small", 0, kRowNN, 256, 256, 256, 0.f, kUniform, kUniform, kExponents, kUniform},
      {"one_call_large", 0, kRowNN, 2048, 2048, 2048, 0.f, kUniform, kUniform, kExponents,
       kExponents},
      {"one_call_col_TN", 0, colTN, 1000, 700, 300, 0.5f, kUniform, kUniform, kUniform, kUniform},
      {"one_call_short_K", 0, kRowNN, 1500, 1200, 8, 0.f, kUniform, kUniform, kUniform, kUniform},
      // Each candidate of the one call.
      {"rung11", 11, kRowNN, 777, 555, 333, 0.f, kUniform, kUniform, kUniform, kUniform},
      {"rung15_NT", 15, rowNT, 1024, 768, 512, 0.25f, kUniform, kUniform, kUniform, kUniform},
      // Rung 15's pre-pass path with a split in the main kernel (4 slices in a cluster): of A
      // where C has few columns, of B (C^T = B^T A^T) where it has few rows.
      {"rung15_split_a", 15, kRowNN, 2048, 256, 1024, 0.f, kUniform, kUniform, kExponents,
       kUniform},
      {"rung15_split_b", 15, kRowNN, 256, 2048, 1024, 0.5f, kUniform, kUniform, kUniform,
       kExponents},
      {"rung17", 17, kRowNN, 300, 200, 1000, 0.f, kUniform, kUniform, kUniform, kUniform},
      // Rung 13 in slices (off Hopper's path for the one call); on the replay values below
      // 2^-114 that the slices answer in plain FP32.
      {"rung13_sliced", 13, kRowNN, 256, 256, 512, 0.5f, kUniform, kUniform, kWideExponents,
       kUniform},
      // Rung 16's paths, and on the replay another path than the captured one.
      {"rung16_integer", 16, kRowNN, 1024, 1024, 1024, 0.f, kUniform, kUniform, kBigColumn,
       kUniform},
      {"rung16_slow_rows", 16, kRowNN, 1024, 1024, 1024, 0.5f, kHeavyRow, kUniform, kUniform,
       kHeavyColumn},
      {"rung16_slow_columns", 16, kRowNN, 1024, 1024, 1024, 0.5f, kUniform, kHeavyColumn, kHeavyRow,
       kUniform},
      {"rung16_whole_big_column", 16, kRowNN, 1024, 1024, 1024, 0.f, kBigColumn, kUniform, kUniform,
       kUniform},
      {"rung16_short_K", 16, kRowNN, 512, 384, 8, 0.5f, kHeavyRow, kUniform, kUniform,
       kHeavyColumn},
      {"rung16_whole_exponents", 16, kRowNN, 1024, 1024, 2048, 0.f, kExponents, kExponents,
       kUniform, kHeavyColumn},
  };
}

class Graphs : public GpuTest, public ::testing::WithParamInterface<Case> {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_) CUDA_CHECK(cudaStreamDestroy(stream_));
  }
  cudaStream_t stream_ = nullptr;
};

// The case's call on `stream`.
Status run(const Case& c, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
           cudaStream_t stream, std::string* why) {
  if (c.rung == 0)
    return gemm(c.op.layout, c.op.a, c.op.b, c.M, c.N, c.K, 1.f, A, lda, B, ldb, c.beta, C, ldc,
                stream, why);
  return launch(*find_rung(c.rung), c.op, Gemm{c.M, c.N, c.K, 1.f, A, lda, B, ldb, c.beta, C, ldc},
                stream, why);
}

std::vector<uint32_t> bits(const DeviceBuffer& buffer) {
  const std::vector<float> values = to_host(buffer);
  std::vector<uint32_t> out(values.size());
  std::memcpy(out.data(), values.data(), values.size() * sizeof(float));
  return out;
}

TEST_P(Graphs, ReplayIsBitwiseTheDirectCall) {
  const Case& c = GetParam();
  if (c.rung != 0) SGEMM_SKIP_UNSUPPORTED_RUNG(c.rung);
  const Extent a = stored_extent(c.op.layout, c.op.a, c.M, c.K);
  const Extent b = stored_extent(c.op.layout, c.op.b, c.K, c.N);
  const Extent cs = stored_extent(c.op.layout, Op::N, c.M, c.N);
  DeviceBuffer A(size_t(a.lines) * a.length), B(size_t(b.lines) * b.length),
      C0(size_t(cs.lines) * cs.length), direct(C0.size()), replayed(C0.size());
  auto fill = [&](const Values& va, const Values& vb, uint64_t seed) {
    fill_matrix(A.get(), a.lines, a.length, a.length, va.fill, seed, 0.f, stream_, va.param);
    fill_matrix(B.get(), b.lines, b.length, b.length, vb.fill, seed + 1, 0.f, stream_, vb.param);
  };
  auto reset = [&](DeviceBuffer& out) {
    CUDA_CHECK(cudaMemcpyAsync(out.get(), C0.get(), C0.size() * sizeof(float),
                               cudaMemcpyDeviceToDevice, stream_));
  };
  fill(c.a, c.b, 11);
  fill_matrix(C0.get(), cs.lines, cs.length, cs.length, Fill::uniform, 13, 0.f, stream_);
  reset(replayed);
  CUDA_CHECK(cudaStreamSynchronize(stream_));

  // The capture first: the library's one-time setup happens inside it.
  std::string why;
  CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
  const Status captured =
      run(c, A.get(), a.length, B.get(), b.length, replayed.get(), cs.length, stream_, &why);
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
  ASSERT_EQ(captured, Status::ok) << why;
  ASSERT_EQ(ended, cudaSuccess) << "the capture failed: " << cudaGetErrorString(ended)
                                << " (a call inside it that capture forbids)";
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  // Replays the graph into `replayed`, calls directly into `direct`: the two must be bitwise equal.
  auto replay_matches_direct = [&](const char* when) {
    CUDA_CHECK(cudaGraphLaunch(exec, stream_));
    reset(direct);
    ASSERT_EQ(run(c, A.get(), a.length, B.get(), b.length, direct.get(), cs.length, stream_, &why),
              Status::ok)
        << why;
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    EXPECT_EQ(bits(replayed), bits(direct)) << c.name << ": " << when;
  };
  replay_matches_direct("the replay differs from the direct call");
  if (HasFatalFailure()) return;

  // Later: the workspace given back, other calls in between, new values in the same buffers.
  ASSERT_EQ(release_workspace(&why), Status::ok) << why;
  {
    DeviceBuffer x(512 * 512), y(512 * 512), z(512 * 512);
    fill_matrix(x.get(), 512, 512, 512, Fill::uniform, 5, 0.f, stream_);
    fill_matrix(y.get(), 512, 512, 512, Fill::uniform, 6, 0.f, stream_);
    ASSERT_EQ(gemm(Layout::row_major, Op::T, Op::N, 512, 512, 512, 1.f, x.get(), 512, y.get(), 512,
                   0.f, z.get(), 512, stream_, &why),
              Status::ok)
        << why;
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  fill(c.a2, c.b2, 21);
  reset(replayed);
  replay_matches_direct("the later replay on new values differs");
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
}

INSTANTIATE_TEST_SUITE_P(EveryPath, Graphs, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return std::string(param.param.name);
                         });

// The check above can fail: a call that synchronizes, inside a capture in global mode, ends the
// capture with an error.
class GlobalCapture : public GpuTest {};

TEST_F(GlobalCapture, FailsOnASynchronizingCall) {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer x(16);
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  fill_value(x.get(), x.size(), 1.f, stream);
  EXPECT_NE(cudaStreamSynchronize(stream), cudaSuccess);
  cudaGraph_t graph = nullptr;
  EXPECT_NE(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  if (graph) CUDA_CHECK(cudaGraphDestroy(graph));
  cudaGetLastError();
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace sgemm::testing
