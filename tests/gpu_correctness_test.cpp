// Every rung of the ladder, checked against cuBLAS in both check modes over the shapes that
// break tiled kernels: powers of two, odd sizes, tall and skinny, padded leading dimensions,
// alpha/beta combinations and a seeded random sweep. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "entries.h"  // rungs 15 and 17 with their choices forced
#include "gpu_support.h"
#include "harness.h"
#include "rung_id.h"
#include "seeded_random.h"
#include "sgemm/sgemm.h"

namespace sgemm::testing {
namespace {

using Case = Problem;

// Square and mixed shapes with tight leading dimensions.
std::vector<Case> tight(const std::vector<Shape>& shapes) {
  std::vector<Case> cases;
  for (const Shape& s : shapes) cases.push_back({s});
  return cases;
}

using Param = std::tuple<int, CheckMode>;  // rung number, check mode

class RungCorrectness : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    SGEMM_SKIP_WITHOUT_GPU();
    harness_ = std::make_unique<Harness>(0);
    SGEMM_SKIP_UNSUPPORTED_RUNG(std::get<0>(GetParam()));
  }

  // Checks every case; a failing case names its shape and scalars and does not stop the rest.
  void expect_all_pass(const std::vector<Case>& cases) {
    const auto [rung, mode] = GetParam();
    uint64_t seed = 1;
    for (const Case& c : cases) {
      SCOPED_TRACE(c.str());
      const std::string obstacle = exact_mode_obstacle(c.alpha, c.beta, c.shape.K);
      if (mode == CheckMode::exact && !obstacle.empty()) {
        ADD_FAILURE() << "test bug: " << obstacle;
        continue;
      }
      const CheckReport report = harness_->check(rung, c, mode, seed++);
      EXPECT_EQ(report.mode, mode);
      EXPECT_TRUE(report.pass()) << report.summary()
                                 << (report.dump_path.empty() ? "" : "; dump: " + report.dump_path);
    }
  }

  std::unique_ptr<Harness> harness_;
};

TEST_P(RungCorrectness, PowersOfTwo) {
  std::vector<Shape> shapes;
  for (int n = 1; n <= 1024; n *= 2) shapes.push_back({n, n, n});
  for (Shape s : {Shape{64, 1024, 32}, Shape{1024, 64, 512}, Shape{2, 512, 1024}, Shape{512, 2, 8},
                  Shape{128, 256, 1}, Shape{1, 256, 128}})
    shapes.push_back(s);
  expect_all_pass(tight(shapes));
}

TEST_P(RungCorrectness, OddSizes) {
  std::vector<Shape> shapes;
  for (int n : {1, 7, 33, 127, 1000, 1023, 1025}) shapes.push_back({n, n, n});
  for (Shape s : {Shape{1023, 7, 1025}, Shape{7, 1025, 1023}, Shape{1025, 1023, 7},
                  Shape{33, 127, 1}, Shape{1, 1000, 33}, Shape{127, 1, 1023}, Shape{65, 63, 129}})
    shapes.push_back(s);
  expect_all_pass(tight(shapes));
}

TEST_P(RungCorrectness, TallAndSkinny) {
  expect_all_pass(tight({{4096, 16, 64},
                         {16, 4096, 64},
                         {1, 1, 4096},
                         {2048, 1, 3},
                         {3, 2048, 1},
                         {4096, 1, 1},
                         {1, 4096, 1},
                         {1, 1, 1},
                         {8192, 8, 8}}));
}

// Odd pads misalign every row after the first, which a vectorized path must handle.
TEST_P(RungCorrectness, PaddedLeadingDimensions) {
  std::vector<Case> cases;
  for (Shape s : {Shape{64, 64, 64}, Shape{33, 65, 17}, Shape{128, 96, 1000}}) {
    for (int pad : {1, 3, 4, 32}) {
      const int M = s.M, N = s.N, K = s.K;
      cases.push_back({{M, N, K, K + pad, N + pad, N + pad}});  // all three padded
      cases.push_back({{M, N, K, K + pad, 0, 0}});              // one at a time
      cases.push_back({{M, N, K, 0, N + pad, 0}});
      cases.push_back({{M, N, K, 0, 0, N + pad}});
    }
    cases.push_back({{s.M, s.N, s.K, s.K + 1, s.N + 3, s.N + 4}});  // different pads
  }
  cases.push_back({{257, 129, 65, 65 + 5, 129 + 2, 129 + 1}, 2.f, -1.f});  // and beta reads C
  expect_all_pass(cases);
}

// Matrices that start 4 (or 8, 12) bytes past a 16-byte boundary while every leading
// dimension is a multiple of 4: only the pointer tells a float4 path it must not run.
TEST_P(RungCorrectness, MisalignedPointers) {
  std::vector<Case> cases;
  for (Shape s : {Shape{64, 64, 64}, Shape{128, 96, 1000, 1004, 100, 104}, Shape{33, 68, 20}})
    for (Offsets o :
         {Offsets{1, 0, 0}, Offsets{0, 1, 0}, Offsets{0, 0, 1}, Offsets{1, 1, 1}, Offsets{2, 3, 1}})
      for (float beta : {0.f, 1.f}) {  // beta != 0 reads C too
        Case c{s, 1.f, beta};
        c.offset = o;
        cases.push_back(c);
      }
  expect_all_pass(cases);
}

TEST_P(RungCorrectness, AlphaBeta) {
  // beta == 0 must not read C (the harness poisons it). The first scalars keep the whole
  // result exact; the others round in the epilogue, which the exact mode allows and no more.
  // alpha == 0 never reaches a rung: the API's rule, tested once in gpu_errors_test.
  std::vector<std::pair<float, float>> scalars = {{1, 0},       {1, 1},        {-1, 0.5f},
                                                  {2, -1},      {0.5f, 0.25f}, {-0.0625f, 3},
                                                  {0.3f, 0.7f}, {-1.7f, 0.1f}, {1e-3f, -2.5f}};
  std::vector<Case> cases;
  for (Shape s : {Shape{128, 128, 128}, Shape{33, 65, 127}, Shape{1, 7, 1000}})
    for (auto [alpha, beta] : scalars) cases.push_back({s, alpha, beta});
  expect_all_pass(cases);
}

// Shapes no one thought of: the project's own seeded generator, so a failing shape
// reproduces with any compiler and standard library.
TEST_P(RungCorrectness, RandomSweep) {
  SeededRandom random(20240611);
  const float alphas[] = {1, -1, 0.5f, 2}, betas[] = {0, 0, 1, -0.5f};
  std::vector<Case> cases;
  for (int n = 0; n < 40; ++n) {
    const int M = random.uniform_int(1, 1100), N = random.uniform_int(1, 1100),
              K = random.uniform_int(1, 1100);
    const int lda = K + random.uniform_int(0, 5), ldb = N + random.uniform_int(0, 5),
              ldc = N + random.uniform_int(0, 5);
    const float alpha = alphas[random.uniform_int(0, 3)], beta = betas[random.uniform_int(0, 3)];
    Case c{{M, N, K, lda, ldb, ldc}, alpha, beta};
    c.offset = {random.uniform_int(0, 3), random.uniform_int(0, 3), random.uniform_int(0, 3)};
    cases.push_back(c);
  }
  expect_all_pass(cases);
}

std::vector<Param> every_rung_and_mode() {
  std::vector<Param> params;
  for (const RungInfo& rung : rungs())
    for (CheckMode mode : {CheckMode::exact, CheckMode::random})
      params.emplace_back(rung.number, mode);
  return params;
}

// Test names read "Ladder/RungCorrectness.OddSizes/05_blocktiling_2d_exact".
std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  const auto [number, mode] = info.param;
  std::string name = find_rung(number)->name;
  return (number < 10 ? "0" : "") + std::to_string(number) + "_" + name + "_" + to_string(mode);
}

INSTANTIATE_TEST_SUITE_P(Ladder, RungCorrectness, ::testing::ValuesIn(every_rung_and_mode()),
                         param_name);

// Kernels that split K and add the slices in a fixed order: `launch` (writing C) runs three
// times on the same inputs, C filled with NaN before each; the first result is within the FP32
// tolerance of cuBLAS, the others bitwise the same as the first. Full-precision random inputs,
// so that any change of summation order would show in the low bits.
class Repeatable : public GpuTest {
 protected:
  template <class Launch>
  void expect_repeatable(const Shape& s, const DeviceBuffer& A, const DeviceBuffer& B,
                         DeviceBuffer& C, Launch&& launch) {
    std::vector<float> first;
    for (int run = 0; run < 3; ++run) {
      fill_value(C.get(), C.size(), kNaN, harness_->stream());
      CUDA_CHECK(launch());
      sync();
      const std::vector<float> got = to_host(C);
      if (run == 0) {
        first = got;
        const Comparison c = compare_with_cublas(*harness_, s, A, B, got, Precision::fp32);
        EXPECT_TRUE(c.pass) << "not within the FP32 tolerance of cuBLAS";
      } else {
        EXPECT_EQ(std::memcmp(first.data(), got.data(), got.size() * sizeof(float)), 0)
            << "run " << run << " differs from run 0";
      }
    }
  }

  // Rung 13 on s (uniform inputs, seeds `seed` and `seed` + 1) with the workspace held to
  // `limit` bytes: it still runs, within FP32's bound of cuBLAS.
  void expect_rung13_within_bound_under(size_t limit, const Shape& s, uint64_t seed) {
    DeviceBuffer A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N);
    fill_matrix(A.get(), s.M, s.K, s.K, Fill::uniform, seed, 0.f, harness_->stream());
    fill_matrix(B.get(), s.K, s.N, s.N, Fill::uniform, seed + 1, 0.f, harness_->stream());
    sync();
    release_workspace();
    set_workspace_limit(limit);
    std::string why;
    const Status status = launch(rung_number(RungId::mma_3xtf32), s.M, s.N, s.K, 1.f, A.get(), s.K,
                                 B.get(), s.N, 0.f, C.get(), s.N, harness_->stream(), &why);
    sync();
    set_workspace_limit(0);
    ASSERT_EQ(status, Status::ok) << why;
    EXPECT_TRUE(compare_with_cublas(*harness_, s, A, B, to_host(C), Precision::fp32).pass);
  }
};

// Rung 17 sums a tile's partial products across the blocks of a cluster, in rank order: the
// same bits on every run, for every tile and cluster size (1 to 16 blocks).
class ClusterSplitK : public Repeatable {};

TEST_F(ClusterSplitK, BitwiseRepeatableOnEveryTileAndClusterSize) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung_number(RungId::cluster_splitk));
  for (const Shape& s : {Shape{128, 128, 128}, Shape{333, 257, 4099}, Shape{512, 384, 1000}}) {
    DeviceBuffer A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N);
    fill_matrix(A.get(), s.M, s.K, s.K, Fill::uniform, 21, 0.f, harness_->stream());
    fill_matrix(B.get(), s.K, s.N, s.N, Fill::uniform, 22, 0.f, harness_->stream());
    const Gemm g = gemm_of(Problem{s}, A.get(), B.get(), C.get());
    for (int config = 0; config < cluster_splitk::config_count(); ++config)
      for (int ranks : {1, 2, 4, 8, 16}) {
        SCOPED_TRACE(s.str() + " config " + std::to_string(config) + " ranks " +
                     std::to_string(ranks));
        expect_repeatable(s, A, B, C, [&] {
          return cluster_splitk::launch_config(config, ranks, g, harness_->stream());
        });
      }
  }
}

// Rung 19 is rung 17's cluster sum on 3xTF32 tiles: the same bits on every run, for every
// cluster size (1 to 16 blocks), slices of K that end mid-stage, and tails in M and N.
class Cluster3xTf32 : public Repeatable {};

TEST_F(Cluster3xTf32, BitwiseRepeatableOnEveryClusterSize) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung_number(RungId::cluster_3xtf32));
  for (const Shape& s : {Shape{128, 128, 128}, Shape{333, 257, 4099}, Shape{65, 70, 600}}) {
    DeviceBuffer A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N);
    fill_matrix(A.get(), s.M, s.K, s.K, Fill::uniform, 23, 0.f, harness_->stream());
    fill_matrix(B.get(), s.K, s.N, s.N, Fill::uniform, 24, 0.f, harness_->stream());
    const Gemm g = gemm_of(Problem{s}, A.get(), B.get(), C.get());
    for (int ranks : {1, 2, 4, 8, 16}) {
      SCOPED_TRACE(s.str() + " ranks " + std::to_string(ranks));
      expect_repeatable(
          s, A, B, C, [&] { return cluster_3xtf32::launch_config(ranks, g, harness_->stream()); });
    }
  }
}

// Rung 13 cuts K into slices where its tiles fill fewer than half the blocks the GPU holds, and
// adds them in order in a second kernel: the same bits on every run. On an H100 or H200 (128 x
// 128 tiles, two blocks an SM) 1024^3 is 64 tiles (4 slices), 2 x 512 x 1024 four (8 slices),
// 333 x 257 x 4099 nine (16 slices, the last shorter, its operands packed: K and N odd),
// 127 x 1 x 1023 one (7 slices); 2048 x 2048 x 512 (256 tiles) runs unsplit.
class Rung13Split : public Repeatable {};

TEST_F(Rung13Split, BitwiseRepeatableWhereItSplits) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung_number(RungId::mma_3xtf32));
  for (const Shape& s : {Shape{1024, 1024, 1024}, Shape{2, 512, 1024}, Shape{333, 257, 4099},
                         Shape{127, 1, 1023}, Shape{2048, 2048, 512}}) {
    DeviceBuffer A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N);
    fill_matrix(A.get(), s.M, s.K, s.K, Fill::uniform, 51, 0.f, harness_->stream());
    fill_matrix(B.get(), s.K, s.N, s.N, Fill::uniform, 52, 0.f, harness_->stream());
    SCOPED_TRACE(s.str());
    expect_repeatable(s, A, B, C, [&] {
      const Status status = launch(rung_number(RungId::mma_3xtf32), s.M, s.N, s.K, 1.f, A.get(),
                                   s.K, B.get(), s.N, 0.f, C.get(), s.N, harness_->stream());
      return status == Status::ok ? cudaSuccess : cudaErrorUnknown;
    });
  }
}

// The slices of 128 x 128 x 4096 (one tile: 16 slices of 256) take exactly 1 MiB of workspace;
// with that as the limit the guard flags come first and the slices do not fit: the rung runs
// unsplit, and right.
TEST_F(Rung13Split, WithoutWorkspaceForTheSlicesItRunsUnsplit) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung_number(RungId::mma_3xtf32));
  expect_rung13_within_bound_under(size_t(16) * 128 * 128 * sizeof(float), Shape{128, 128, 4096},
                                   53);
}

// Rung 13's tiles, each forced (the GPU's shared memory picks one of them): within FP32's bound
// in both check modes on split and unsplit shapes, padded, and with K and N odd (the flag pass
// packs A and B for 16-byte copies); and where the workspace holds the flags but not the packed
// copies, on the 4-byte copies.
class Rung13Tiles : public Repeatable {};

TEST_F(Rung13Tiles, EveryTileWithinTheBound) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung_number(RungId::mma_3xtf32));
  const Problem problems[] = {
      Problem{Shape{1024, 1024, 1024}}, Problem{Shape{333, 257, 517}, 1.5f, 0.25f},
      Problem{Shape{200, 136, 1000, 1004, 140, 144}, -1.f, 0.f},
      Problem{Shape{130, 70, 4099}, 1.f, -2.f}, Problem{Shape{600, 700, 200}}};
  for (int config = 0; config < mma_3xtf32::config_count(); ++config) {
    const Kernel tile = launched(
        [config](const Gemm& g, cudaStream_t s) { return mma_3xtf32::launch_config(config, g, s); },
        "rung 13 tile " + std::to_string(config));
    uint64_t seed = 61;
    for (const Problem& p : problems)
      for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
        if (mode == CheckMode::exact && !exact_mode_obstacle(p.alpha, p.beta, p.shape.K).empty())
          continue;  // whole-number inputs whose sums FP32 cannot hold exactly
        SCOPED_TRACE(p.str() + " tile " + std::to_string(config));
        const CheckReport r = harness_->check(tile, p, mode, seed++, "rung 13 tile");
        EXPECT_TRUE(r.pass()) << r.summary();
      }
  }
}

TEST_F(Rung13Tiles, WithoutWorkspaceForThePackedCopiesItReadsInPlace) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung_number(RungId::mma_3xtf32));
  // 2001 x 2003 x 1001: 256 tiles or more, unsplit; the limit holds the flags (16 KiB), not a
  // copy of A (8 MiB), so A and B are read in place
  expect_rung13_within_bound_under(size_t(1) << 20, Shape{2001, 2003, 1001}, 55);
}

// Rung 15's pre-pass path: with one slice each block walks several tiles (1500 x 1700 has 168
// tiles of 128 x 128 for 132 SMs; 2000 x 2100, 272), with several the slices of a tile meet in
// a cluster (1 to 8 blocks, 3 and 5 cut the tile's rows unevenly).
class Rung15Paths : public Repeatable {};

TEST_F(Rung15Paths, BitwiseRepeatableOnEverySliceCount) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung_number(RungId::every_shape_3xtf32));
  struct Run {
    Shape shape;
    std::vector<int> slices;
  };
  for (const Run& r :
       {Run{{128, 128, 128}, {1, 2, 3, 4}}, Run{{333, 257, 4099}, {1, 2, 3, 5, 8}},
        Run{{1500, 1700, 300}, {1}}, Run{{2000, 2100, 64}, {1}}, Run{{640, 384, 2048}, {2, 7}}}) {
    const Shape& s = r.shape;
    DeviceBuffer A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N);
    fill_matrix(A.get(), s.M, s.K, s.K, Fill::uniform, 31, 0.f, harness_->stream());
    fill_matrix(B.get(), s.K, s.N, s.N, Fill::uniform, 32, 0.f, harness_->stream());
    const Gemm g = gemm_of(Problem{s}, A.get(), B.get(), C.get());
    for (int slices : r.slices) {
      SCOPED_TRACE(s.str() + " slices " + std::to_string(slices));
      expect_repeatable(s, A, B, C, [&] {
        return every_shape_3xtf32::launch_config(1, slices, g, harness_->stream());
      });
    }
  }
}

// Where N <= kSplitAMaxN (1024) and A's rows are 16-byte aligned, the pre-pass path splits A in
// its main kernel (docs/15): the products are the pre-pass split's, so C is bitwise the C of the
// same A one float further on, whose rows are not 16-byte aligned (the pre-pass splits it), for 1
// and 2 slices.
TEST_F(Rung15Paths, SplitOfAInTheKernelIsBitwiseThePrePassSplit) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung_number(RungId::every_shape_3xtf32));
  const Shape s{1000, 256, 1500};  // N <= kSplitAMaxN; lda = 1500, a multiple of 4 floats
  DeviceBuffer A(size_t(s.M) * s.K), shifted(size_t(s.M) * s.K + 1), B(size_t(s.K) * s.N),
      C(size_t(s.M) * s.N);
  fill_matrix(A.get(), s.M, s.K, s.K, Fill::uniform, 41, 0.f, harness_->stream());
  fill_matrix(B.get(), s.K, s.N, s.N, Fill::uniform, 42, 0.f, harness_->stream());
  CUDA_CHECK(cudaMemcpyAsync(shifted.get() + 1, A.get(), A.size() * sizeof(float),
                             cudaMemcpyDeviceToDevice, harness_->stream()));
  for (int slices : {1, 2}) {
    SCOPED_TRACE("slices " + std::to_string(slices));
    std::vector<float> got[2];
    for (int i = 0; i < 2; ++i) {
      const Gemm g = gemm_of(Problem{s}, i == 0 ? A.get() : shifted.get() + 1, B.get(), C.get());
      fill_value(C.get(), C.size(), kNaN, harness_->stream());
      CUDA_CHECK(every_shape_3xtf32::launch_config(1, slices, g, harness_->stream()));
      sync();
      got[i] = to_host(C);
    }
    EXPECT_TRUE(compare_with_cublas(*harness_, s, A, B, got[0], Precision::fp32).pass);
    EXPECT_EQ(std::memcmp(got[0].data(), got[1].data(), got[0].size() * sizeof(float)), 0)
        << "the split in the main kernel and the pre-pass's differ";
  }
}

// Where M <= kSplitAMaxN (1024) < N and B's rows are 16-byte aligned, the pre-pass path computes
// C^T = B^T A^T (B split in the main kernel, A's split its other operand, C written transposed):
// within FP32's tolerance and bitwise repeatable, 1 to 3 slices (padded leading dimensions,
// alpha, beta and FP32's edges: tests/gpu_semantics_test.cpp's 40 x 1100 x 72).
TEST_F(Rung15Paths, TransposedProblemForFewRowsOfC) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung_number(RungId::every_shape_3xtf32));
  // (N a multiple of 4: B's rows 16-byte aligned; 129 x 1001 leaves A's rows unaligned)
  for (const Shape& s : {Shape{300, 1100, 700}, Shape{129, 1060, 1001}}) {
    DeviceBuffer A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N);
    fill_matrix(A.get(), s.M, s.K, s.K, Fill::uniform, 51, 0.f, harness_->stream());
    fill_matrix(B.get(), s.K, s.N, s.N, Fill::uniform, 52, 0.f, harness_->stream());
    const Gemm g = gemm_of(Problem{s}, A.get(), B.get(), C.get());
    for (int slices : {1, 2, 3}) {
      SCOPED_TRACE(s.str() + " slices " + std::to_string(slices));
      expect_repeatable(s, A, B, C, [&] {
        return every_shape_3xtf32::launch_config(1, slices, g, harness_->stream());
      });
    }
  }
}

}  // namespace
}  // namespace sgemm::testing
