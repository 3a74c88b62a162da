// The C ABI (sgemm/sgemm_c.h) on the host: bad calls answer their status and sentence before
// any CUDA call, the enums and rungs match the C++ API's, the last sentence and the pointer
// checks are the calling thread's, and the shared library exports every function the header
// declares (found by dlopen/dlsym, as Python's ctypes finds them), sgemm.h's functions, and
// nothing of the library's internals. GPU checks of the C ABI: gpu_errors_test.cpp.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "sgemm/sgemm.h"
#include "sgemm/sgemm_c.h"

namespace {

TEST(CApi, ABadSizeIsItsStatusAndSentence) {
  float x = 0;  // never read: the sizes fail first
  const sgemm_status status = sgemm_gemm(SGEMM_ROW_MAJOR, SGEMM_OP_N, SGEMM_OP_N, 0, 8, 8, 1.f, &x,
                                         8, &x, 8, 0.f, &x, 8, nullptr);
  EXPECT_EQ(status, SGEMM_STATUS_BAD_SIZE);
  EXPECT_NE(std::string(sgemm_last_error()).find("M = 0"), std::string::npos) << sgemm_last_error();
  EXPECT_STREQ(sgemm_status_string(status), "bad size");
}

TEST(CApi, ALeadingDimensionBelowBlasRuleNamesIt) {
  float x = 0;
  EXPECT_EQ(sgemm_gemm(SGEMM_COL_MAJOR, SGEMM_OP_N, SGEMM_OP_N, 8, 8, 8, 1.f, &x, 7, &x, 8, 0.f, &x,
                       8, nullptr),
            SGEMM_STATUS_BAD_LEADING_DIM);
  EXPECT_NE(std::string(sgemm_last_error()).find("lda = 7"), std::string::npos)
      << sgemm_last_error();
}

TEST(CApi, AnUnknownRungAndABadEnumAreRefused) {
  float x = 0;
  EXPECT_EQ(sgemm_launch(99, 8, 8, 8, 1.f, &x, 8, &x, 8, 0.f, &x, 8, nullptr),
            SGEMM_STATUS_UNKNOWN_RUNG);
  EXPECT_NE(std::string(sgemm_last_error()).find("99"), std::string::npos);
  EXPECT_NE(sgemm_gemm(static_cast<sgemm_layout>(7), SGEMM_OP_N, SGEMM_OP_N, 8, 8, 8, 1.f, &x, 8,
                       &x, 8, 0.f, &x, 8, nullptr),
            SGEMM_STATUS_OK);
  EXPECT_NE(std::string(sgemm_last_error()).find("layout"), std::string::npos);
}

TEST(CApi, StatusStringsAreTheCppApis) {
  for (int s = SGEMM_STATUS_OK; s <= SGEMM_STATUS_CUDA_ERROR; ++s)
    EXPECT_STREQ(sgemm_status_string(static_cast<sgemm_status>(s)),
                 sgemm::to_string(static_cast<sgemm::Status>(s)));
  EXPECT_STREQ(sgemm_status_string(static_cast<sgemm_status>(42)), "unknown status");
}

TEST(CApi, RungsAreTheCppApis) {
  ASSERT_EQ(sgemm_rung_count(), static_cast<int>(sgemm::rungs().size()));
  for (int i = 0; i < sgemm_rung_count(); ++i) {
    EXPECT_EQ(sgemm_rung_number(i), sgemm::rungs()[i].number);
    EXPECT_STREQ(sgemm_rung_name(i), sgemm::rungs()[i].name);
    EXPECT_STREQ(sgemm_rung_summary(i), sgemm::rungs()[i].summary);
  }
  EXPECT_EQ(sgemm_rung_number(-1), -1);
  EXPECT_EQ(sgemm_rung_name(sgemm_rung_count()), nullptr);
  EXPECT_EQ(sgemm_one_call_rung(), sgemm::one_call_rung().number);
  EXPECT_STRNE(sgemm_version(), "");
}

// Every function sgemm_c.h declares, found in libsgemm_ladder.so by name.
TEST(CApi, TheSharedLibraryExportsEveryFunction) {
  std::ifstream header(SGEMM_SOURCE_DIR "/include/sgemm/sgemm_c.h");
  std::stringstream text;
  text << header.rdbuf();
  const std::string code = text.str();
  const std::regex declaration(R"(\b(sgemm_\w+)\()");
  void* library = dlopen(SGEMM_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  int found = 0;
  for (auto m = std::sregex_iterator(code.begin(), code.end(), declaration);
       m != std::sregex_iterator(); ++m, ++found)
    EXPECT_NE(dlsym(library, (*m)[1].str().c_str()), nullptr) << (*m)[1] << " is not exported";
  EXPECT_GE(found, 15) << "the header's declarations were not read";
  dlclose(library);
}

TEST(CApi, NullAndMisalignedPointersAreNamed) {
  float x[4] = {};
  EXPECT_EQ(sgemm_gemm(SGEMM_ROW_MAJOR, SGEMM_OP_N, SGEMM_OP_N, 8, 8, 8, 1.f, nullptr, 8, x, 8, 0.f,
                       x, 8, nullptr),
            SGEMM_STATUS_BAD_POINTER);
  EXPECT_NE(std::string(sgemm_last_error()).find("A is a null pointer"), std::string::npos)
      << sgemm_last_error();
  const auto* misaligned = reinterpret_cast<const float*>(reinterpret_cast<std::uintptr_t>(x) + 2);
  EXPECT_EQ(sgemm_gemm(SGEMM_ROW_MAJOR, SGEMM_OP_N, SGEMM_OP_N, 8, 8, 8, 1.f, x, 8, misaligned, 8,
                       0.f, x, 8, nullptr),
            SGEMM_STATUS_BAD_POINTER);
  EXPECT_NE(std::string(sgemm_last_error()).find("B is not 4-byte aligned"), std::string::npos)
      << sgemm_last_error();
}

TEST(CApi, TheVersionIsTheProjects) { EXPECT_STREQ(sgemm_version(), SGEMM_PROJECT_VERSION); }

TEST(CApi, TheLastErrorIsTheThreads) {
  float x = 0;
  EXPECT_EQ(sgemm_gemm(SGEMM_ROW_MAJOR, SGEMM_OP_N, SGEMM_OP_N, 0, 8, 8, 1.f, &x, 8, &x, 8, 0.f, &x,
                       8, nullptr),
            SGEMM_STATUS_BAD_SIZE);
  std::string other;
  std::thread([&] {
    other = sgemm_last_error();
    sgemm_launch(1, 8, 8, 8, 1.f, &x, 3, &x, 8, 0.f, &x, 8, nullptr);  // lda = 3, this thread's
  }).join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(sgemm_last_error()).find("M = 0"), std::string::npos) << sgemm_last_error();
}

// With the caller vouching, no pointer nor the stream is asked of CUDA: host pointers pass the
// checks, on any machine; null, misalignment, sizes and leading dimensions are still refused.
// The setting is the calling thread's.
TEST(CApi, CallerVouchesSkipsOnlyTheCudaQueries) {
  float x[4] = {};
  const float* a = x;
  float* c = x + 1;
  const sgemm::Operation rows;
  std::string why;
  EXPECT_NE(sgemm::check_arguments(rows, 8, 8, 8, a, 8, a, 8, c, 8, &why), sgemm::Status::ok)
      << "host memory (or no GPU) must fail the default checks";
  sgemm_set_pointer_checks(SGEMM_CALLER_VOUCHES);
  EXPECT_EQ(sgemm::check_arguments(rows, 8, 8, 8, a, 8, a, 8, c, 8, &why), sgemm::Status::ok)
      << why;
  EXPECT_EQ(sgemm::check_arguments(rows, 8, 8, 8, a, 8, nullptr, 8, c, 8, &why),
            sgemm::Status::bad_pointer);
  const auto* misaligned = reinterpret_cast<const float*>(reinterpret_cast<std::uintptr_t>(x) + 1);
  EXPECT_EQ(sgemm::check_arguments(rows, 8, 8, 8, misaligned, 8, a, 8, c, 8, &why),
            sgemm::Status::bad_pointer);
  EXPECT_EQ(sgemm::check_arguments(rows, 8, 8, 8, a, 7, a, 8, c, 8, &why),
            sgemm::Status::bad_leading_dim);
  EXPECT_EQ(sgemm::check_arguments(rows, 0, 8, 8, a, 8, a, 8, c, 8, &why), sgemm::Status::bad_size);
  sgemm::Status elsewhere = sgemm::Status::ok;
  std::thread([&] {
    elsewhere = sgemm::check_arguments(rows, 8, 8, 8, a, 8, a, 8, c, 8, nullptr);
  }).join();
  EXPECT_NE(elsewhere, sgemm::Status::ok) << "another thread keeps the default checks";
  sgemm_set_pointer_checks(SGEMM_CHECK_POINTERS);
  EXPECT_NE(sgemm::check_arguments(rows, 8, 8, 8, a, 8, a, 8, c, 8, &why), sgemm::Status::ok);
}

// ---- libsgemm_ladder.so as ctypes loads it.
struct Library {
  void* handle = dlopen(SGEMM_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ~Library() {
    if (handle) dlclose(handle);
  }
  template <typename Function>
  Function* find(const char* name) const {
    return reinterpret_cast<Function*>(dlsym(handle, name));
  }
};

// sgemm.h's functions are exported too (library/exports.map), and nothing else: not the
// library's internals, nor the CUDA runtime linked into it.
TEST(CApi, TheSharedLibraryExportsTheCppApiAndNoInternals) {
  const Library library;
  ASSERT_NE(library.handle, nullptr) << dlerror();
  for (const char* cpp : {"_ZN5sgemm5rungsEv", "_ZN5sgemm18set_pointer_checksENS_13PointerChecksE",
                          "_ZNK5sgemm9Operation3strB5cxx11Ev",
                          "_ZN5sgemm6launchEiiiifPKfiS1_ifPfiP11CUstream_stPNSt7__cxx1112basic_"
                          "stringIcSt11char_traitsIcESaIcEEE"})
    EXPECT_NE(library.find<void()>(cpp), nullptr) << cpp << " is not exported";
  // check_problem, launch_scale_c (which a pattern sgemm::launch* would catch),
  // runtime::launch_chain; cudaMalloc, ...
  for (const char* hidden :
       {"_ZN5sgemm14launch_scale_cEiifPfiP11CUstream_st",
        "_ZN5sgemm13check_problemERKNS_9OperationERKNS_4GemmEP11CUstream_stPNSt7__cxx1112basic_"
        "stringIcSt11char_traitsIcESaIcEEE",
        "_ZN5sgemm7runtime12launch_chainERKNS_8RungInfoERKNS_4GemmEP11CUstream_stPPS2_b",
        "cudaMalloc", "cudaGetDevice", "cudaLaunchKernel"})
    EXPECT_EQ(library.find<void()>(hidden), nullptr) << hidden << " is exported";
}

// The library alone answers, through its own functions (no C++ between).
TEST(CApi, TheSharedLibraryAnswersThroughItsOwnFunctions) {
  const Library library;
  ASSERT_NE(library.handle, nullptr) << dlerror();
  auto* version = library.find<const char*()>("sgemm_version");
  auto* count = library.find<int()>("sgemm_rung_count");
  auto* gemm = library.find<decltype(sgemm_gemm)>("sgemm_gemm");
  auto* last_error = library.find<const char*()>("sgemm_last_error");
  ASSERT_TRUE(version && count && gemm && last_error);
  EXPECT_STREQ(version(), SGEMM_PROJECT_VERSION);
  EXPECT_EQ(count(), static_cast<int>(sgemm::rungs().size()));
  float x = 0;
  EXPECT_EQ(gemm(SGEMM_ROW_MAJOR, SGEMM_OP_N, SGEMM_OP_N, 8, 0, 8, 1.f, &x, 8, &x, 8, 0.f, &x, 8,
                 nullptr),
            SGEMM_STATUS_BAD_SIZE);
  EXPECT_NE(std::string(last_error()).find("N = 0"), std::string::npos) << last_error();
}

}  // namespace
