// The library's runtime on the GPU: the workspace (a limit below what a problem needs, a pool
// that does not grow with repeated launches, release), launches from several host threads on
// several streams and on several devices, pointers and streams of another device, and rungs a
// GPU has no kernel for. Skips without a GPU; the two-device tests skip on one.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "gpu_support.h"
#include "rung_id.h"
#include "sgemm/sgemm.h"

namespace sgemm::testing {
namespace {

class Runtime : public GpuTest {
 protected:
  void TearDown() override {
    set_workspace_limit(0);  // the default again, for the tests after this one
  }

  // The rungs this GPU can run.
  static std::vector<int> supported() {
    std::vector<int> out;
    for (const RungInfo& r : rungs())
      if (unsupported_reason(r.number).empty()) out.push_back(r.number);
    return out;
  }

  static Status launch_tight(int rung, const Shape& s, const DeviceBuffer& A, const DeviceBuffer& B,
                             DeviceBuffer& C, cudaStream_t stream, std::string* why) {
    return launch(rung, s.M, s.N, s.K, 1.f, A.get(), s.K, B.get(), s.N, 0.f, C.get(), s.N, stream,
                  why);
  }
};

// Every rung, on problems whose workspace passes a small limit: rung 11's slices and packed
// copies, rung 14's split operands. Each takes its path that needs less, and is right.
TEST_F(Runtime, ALimitBelowWhatAProblemNeedsTakesTheFallback) {
  set_workspace_limit(64 << 10);  // 64 KiB: rung 13's flags fit, nothing else does
  EXPECT_EQ(workspace_limit(), size_t{64 << 10});
  Problem unaligned{{300, 200, 1000, 1001, 203, 200}};  // lda, ldb TMA cannot read: packing
  for (const Problem& p : {Problem{{256, 256, 65536}}, Problem{{512, 384, 640}}, unaligned})
    for (int rung : supported()) {
      SCOPED_TRACE("rung " + std::to_string(rung) + " " + p.str());
      for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
        const CheckReport report = harness_->check(rung, p, mode, 1);
        EXPECT_TRUE(report.pass()) << report.summary();
      }
    }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// With no workspace at all, a rung runs on a path that needs none, or says so (rung 13 needs
// M + N flags), and a rung whose workspace is short ends as its fallback does (rung 14 as rung
// 13, kernels/fallbacks.inc); the CUDA error state stays clean, and once the limit allows,
// every rung runs.
TEST_F(Runtime, NoWorkspaceIsAClearStatusAndLeavesNoError) {
  const Shape s{96, 80, 64};
  Buffers b({s}, harness_->stream());
  set_workspace_limit(1);
  std::map<const RungInfo*, Status> status;
  for (int rung : supported()) {
    SCOPED_TRACE("rung " + std::to_string(rung));
    std::string why;
    const Status got = launch_tight(rung, s, b.A, b.B, b.C, harness_->stream(), &why);
    status[find_rung(rung)] = got;
    if (got != Status::ok) {
      EXPECT_EQ(got, Status::no_workspace) << why;
      EXPECT_NE(why.find("workspace"), std::string::npos) << why;
    }
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
  for (const FallbackInfo& f : fallbacks()) {
    if (f.reason == FallbackReason::workspace_short && status.count(f.rung) &&
        status.count(f.instead)) {
      EXPECT_EQ(status[f.rung], status[f.instead]) << f.rung->name << " -> " << f.instead->name;
    }
  }
  set_workspace_limit(0);
  for (int rung : supported()) {
    std::string why;
    ASSERT_EQ(launch_tight(rung, s, b.A, b.B, b.C, harness_->stream(), &why), Status::ok) << why;
    harness_->cublas(Precision::fp32, b.reference_gemm());
    sync();
    const Comparison c = compare_exact(b);
    EXPECT_TRUE(c.pass) << "rung " << rung << ": " << c.summary();
  }
}

// The pool keeps what a launch gave back, and the next launch of the same size takes it again.
TEST_F(Runtime, RepeatedLaunchesDoNotGrowThePool) {
  const Shape s{1024, 1024, 1024};
  Buffers b({s}, harness_->stream());
  for (int rung : supported()) {
    ASSERT_EQ(release_workspace(), Status::ok);
    std::string why;
    ASSERT_EQ(launch_tight(rung, s, b.A, b.B, b.C, harness_->stream(), &why), Status::ok) << why;
    sync();
    const size_t first = workspace_held();
    for (int i = 0; i < 5; ++i)
      ASSERT_EQ(launch_tight(rung, s, b.A, b.B, b.C, harness_->stream(), &why), Status::ok) << why;
    sync();
    EXPECT_EQ(workspace_held(), first) << "rung " << rung;
    if (rung == rung_number(RungId::wgmma_3xtf32)) {
      EXPECT_GE(first, size_t{16} << 20) << "rung 14 splits A and B into the workspace";
    }
  }
}

// release_workspace gives the pools' memory back to the device, after each rung that holds
// some once it has run (rung 14: 2 (M + N) K floats of split operands, 64 MiB, at 2048^3).
TEST_F(Runtime, ReleaseGivesTheMemoryBack) {
  const Shape s{2048, 2048, 2048};
  Buffers b({s}, harness_->stream());
  int holding = 0;
  for (int rung : supported()) {
    SCOPED_TRACE("rung " + std::to_string(rung));
    std::string why;
    ASSERT_EQ(release_workspace(&why), Status::ok) << why;
    ASSERT_EQ(launch_tight(rung, s, b.A, b.B, b.C, harness_->stream(), &why), Status::ok) << why;
    sync();
    const size_t held = workspace_held();
    if (held == 0) continue;  // this rung needs no workspace for this problem
    ++holding;
    size_t before = 0, after = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&before, &total));
    ASSERT_EQ(release_workspace(&why), Status::ok) << why;
    CUDA_CHECK(cudaMemGetInfo(&after, &total));
    EXPECT_EQ(workspace_held(), 0u);
    EXPECT_GE(after + (size_t{4} << 20), before + held) << "free memory grew by " << after - before;
  }
  if (holding == 0) GTEST_SKIP() << "no rung this GPU runs holds workspace at " << s.str();
}

TEST_F(Runtime, TheDefaultLimitIsAQuarterOfTheDevice) {
  if (std::getenv("SGEMM_WORKSPACE_LIMIT")) GTEST_SKIP() << "SGEMM_WORKSPACE_LIMIT is set";
  size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  EXPECT_EQ(workspace_limit(), total / 4);
}

// One problem per thread, every rung three times on the thread's own stream: each result equals
// bit for bit what a single thread got on the same problem.
struct ThreadProblem {
  Shape shape;
  DeviceBuffer A, B;
  std::vector<std::vector<float>> expected;  // per rung of supported()
};

std::vector<float> run_once(int rung, ThreadProblem& p, cudaStream_t stream, std::string* why,
                            Status* status) {
  const Shape& s = p.shape;
  DeviceBuffer C(size_t(s.M) * s.N);
  fill_value(C.get(), C.size(), kNaN, stream);
  *status = launch(rung, s.M, s.N, s.K, 1.f, p.A.get(), s.K, p.B.get(), s.N, 0.f, C.get(), s.N,
                   stream, why);
  std::vector<float> host(C.size());
  CUDA_CHECK(
      cudaMemcpyAsync(host.data(), C.get(), host.size() * 4, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

// Runs every rung on each problem from its own thread and stream, on `device` (one per thread
// when there are several), and counts results that differ from the expected ones.
long long mismatches_from_threads(std::vector<ThreadProblem>& problems,
                                  const std::vector<int>& rung_list,
                                  const std::vector<int>& devices) {
  std::atomic<long long> wrong{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < problems.size(); ++t)
    threads.emplace_back([&, t] {
      CUDA_CHECK(cudaSetDevice(devices[t % devices.size()]));
      cudaStream_t stream = nullptr;
      CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      for (int repeat = 0; repeat < 3; ++repeat)
        for (size_t r = 0; r < rung_list.size(); ++r) {
          std::string why;
          Status status = Status::ok;
          const std::vector<float> got = run_once(rung_list[r], problems[t], stream, &why, &status);
          const std::vector<float>& want = problems[t].expected[r];
          if (status != Status::ok ||
              std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) != 0)
            ++wrong;
        }
      CUDA_CHECK(cudaStreamDestroy(stream));
    });
  for (std::thread& th : threads) th.join();
  return wrong.load();
}

std::vector<ThreadProblem> thread_problems(const std::vector<int>& rung_list, int device) {
  CUDA_CHECK(cudaSetDevice(device));
  const Shape shapes[] = {{520, 384, 1000}, {1024, 128, 4096}, {257, 129, 65}, {768, 768, 512}};
  std::vector<ThreadProblem> problems;
  uint64_t seed = 40;
  for (const Shape& s : shapes) {
    ThreadProblem p{s, DeviceBuffer(size_t(s.M) * s.K), DeviceBuffer(size_t(s.K) * s.N), {}};
    fill_matrix(p.A.get(), s.M, s.K, s.K, Fill::uniform, seed++, 0.f, nullptr);
    fill_matrix(p.B.get(), s.K, s.N, s.N, Fill::uniform, seed++, 0.f, nullptr);
    for (int rung : rung_list) {
      std::string why;
      Status status = Status::ok;
      p.expected.push_back(run_once(rung, p, nullptr, &why, &status));
      EXPECT_EQ(status, Status::ok) << why;
    }
    problems.push_back(std::move(p));
  }
  return problems;
}

TEST_F(Runtime, FourThreadsOnFourStreamsGetTheSingleThreadedBits) {
  const std::vector<int> rung_list = supported();
  std::vector<ThreadProblem> problems = thread_problems(rung_list, 0);
  EXPECT_EQ(mismatches_from_threads(problems, rung_list, {0}), 0);
  CUDA_CHECK(cudaSetDevice(0));
}

TEST_F(Runtime, TwoDevicesAtOnceGetTheSingleDeviceBits) {
  const int devices = cuda_device_count();
  if (devices < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices;
  const std::vector<int> rung_list = supported();
  // The expected bits come from device 0; devices of one model run the same kernels.
  std::vector<ThreadProblem> on0 = thread_problems(rung_list, 0);
  std::vector<ThreadProblem> on1 = thread_problems(rung_list, 1);
  for (size_t t = 0; t < on1.size(); ++t) on1[t].expected = on0[t].expected;
  EXPECT_EQ(mismatches_from_threads(on0, rung_list, {0}), 0);
  EXPECT_EQ(mismatches_from_threads(on1, rung_list, {1}), 0);
  CUDA_CHECK(cudaSetDevice(0));
}

TEST_F(Runtime, PointersAndStreamsOfAnotherDeviceAreRefused) {
  const int devices = cuda_device_count();
  if (devices < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices;
  const int n = 64, rung = last_supported_rung();
  CUDA_CHECK(cudaSetDevice(1));
  DeviceBuffer elsewhere(size_t(n) * n);
  cudaStream_t other = nullptr;
  CUDA_CHECK(cudaStreamCreate(&other));
  CUDA_CHECK(cudaSetDevice(0));
  DeviceBuffer A(size_t(n) * n), B(size_t(n) * n), C(size_t(n) * n);
  std::string why;
  EXPECT_EQ(launch(rung, n, n, n, 1.f, elsewhere.get(), n, B.get(), n, 0.f, C.get(), n,
                   harness_->stream(), &why),
            Status::bad_pointer);
  EXPECT_NE(why.find("device 1"), std::string::npos) << why;
  EXPECT_EQ(launch(rung, n, n, n, 1.f, A.get(), n, B.get(), n, 0.f, C.get(), n, other, &why),
            Status::bad_pointer);
  EXPECT_NE(why.find("stream belongs to device 1"), std::string::npos) << why;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(
      launch(rung, n, n, n, 1.f, A.get(), n, B.get(), n, 0.f, C.get(), n, harness_->stream(), &why),
      Status::ok)
      << why;
  CUDA_CHECK(cudaSetDevice(1));
  CUDA_CHECK(cudaStreamDestroy(other));
  CUDA_CHECK(cudaSetDevice(0));
}

// A rung runs, or says that it has no kernel for this GPU and why; on a Hopper (compute
// capability 9.0) with 90 in the build, every rung runs.
TEST_F(Runtime, EveryRungRunsOrNamesTheGpuItLacks) {
  int major = 0, minor = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  for (const RungInfo& r : rungs()) {
    const std::string why = unsupported_reason(r.number);
    if (why.empty()) continue;
    EXPECT_NE(why.find("compute capability " + std::to_string(major) + "." + std::to_string(minor)),
              std::string::npos)
        << why;
    std::cout << "rung " << r.number << " " << r.name << ": " << why << "\n";
  }
#ifdef SGEMM_SM90A_BUILT
  if (major == 9 && minor == 0) {
    for (const RungInfo& r : rungs()) EXPECT_EQ(unsupported_reason(r.number), "") << r.name;
  }
#endif
}

}  // namespace
}  // namespace sgemm::testing
