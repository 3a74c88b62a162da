// The C ABI (sgemm/sgemm_c.h) on the host: bad calls answer their status and sentence before
// any CUDA call, the enums and rungs match the C++ API's, and the shared library exports every
// function the header declares (found by dlopen/dlsym, as Python's ctypes finds them).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

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

}  // namespace
