// The C ABI (sgemm/sgemm_c.h): each function forwards to the C++ API and keeps the calling
// thread's last sentence. Nothing throws across it: a C++ exception (an allocation failing while
// a sentence is written) becomes SGEMM_STATUS_CUDA_ERROR with what it says.
#include <exception>
#include <string>

#include "sgemm/sgemm.h"
#include "sgemm/sgemm_c.h"

namespace {

using sgemm::Status;

// The C enum is sgemm::Status, value for value.
static_assert(SGEMM_STATUS_OK == static_cast<int>(Status::ok));
static_assert(SGEMM_STATUS_UNKNOWN_RUNG == static_cast<int>(Status::unknown_rung));
static_assert(SGEMM_STATUS_BAD_SIZE == static_cast<int>(Status::bad_size));
static_assert(SGEMM_STATUS_BAD_LEADING_DIM == static_cast<int>(Status::bad_leading_dim));
static_assert(SGEMM_STATUS_BAD_POINTER == static_cast<int>(Status::bad_pointer));
static_assert(SGEMM_STATUS_TOO_LARGE == static_cast<int>(Status::too_large));
static_assert(SGEMM_STATUS_UNSUPPORTED_GPU == static_cast<int>(Status::unsupported_gpu));
static_assert(SGEMM_STATUS_NO_WORKSPACE == static_cast<int>(Status::no_workspace));
static_assert(SGEMM_STATUS_CUDA_ERROR == static_cast<int>(Status::cuda_error));

thread_local std::string last_error;  // sgemm_last_error()

sgemm::Layout layout_of(sgemm_layout layout) {
  return layout == SGEMM_COL_MAJOR ? sgemm::Layout::col_major : sgemm::Layout::row_major;
}
sgemm::Op op_of(sgemm_op op) { return op == SGEMM_OP_T ? sgemm::Op::T : sgemm::Op::N; }

// A bad enum value is the caller's error, named before anything runs.
bool valid(sgemm_layout layout, sgemm_op a, sgemm_op b) {
  auto fail = [](const char* what) {
    last_error = std::string(what) + " is neither of the values sgemm_c.h defines";
    return false;
  };
  if (layout != SGEMM_ROW_MAJOR && layout != SGEMM_COL_MAJOR) return fail("layout");
  if (a != SGEMM_OP_N && a != SGEMM_OP_T) return fail("op_a");
  if (b != SGEMM_OP_N && b != SGEMM_OP_T) return fail("op_b");
  return true;
}

// Runs `call` (which fills its `why`), keeps the sentence, answers the status.
template <typename Call>
sgemm_status answer(Call call) {
  try {
    std::string why;
    const Status status = call(&why);
    last_error = status == Status::ok ? std::string() : why;
    return static_cast<sgemm_status>(status);
  } catch (const std::exception& e) {
    last_error = std::string("the library failed: ") + e.what();
  } catch (...) {
    last_error = "the library failed";
  }
  return SGEMM_STATUS_CUDA_ERROR;
}

const sgemm::RungInfo* rung_at(int index) {
  const auto& all = sgemm::rungs();
  return index >= 0 && index < static_cast<int>(all.size()) ? &all[index] : nullptr;
}

}  // namespace

extern "C" {

sgemm_status sgemm_gemm(sgemm_layout layout, sgemm_op op_a, sgemm_op op_b, int m, int n, int k,
                        float alpha, const float* a, int lda, const float* b, int ldb, float beta,
                        float* c, int ldc, sgemm_stream stream) {
  if (!valid(layout, op_a, op_b)) return SGEMM_STATUS_BAD_SIZE;
  return answer([&](std::string* why) {
    return sgemm::gemm(layout_of(layout), op_of(op_a), op_of(op_b), m, n, k, alpha, a, lda, b, ldb,
                       beta, c, ldc, stream, why);
  });
}

sgemm_status sgemm_gemm_strided_batched(sgemm_layout layout, sgemm_op op_a, sgemm_op op_b, int m,
                                        int n, int k, float alpha, const float* a, int lda,
                                        long long stride_a, const float* b, int ldb,
                                        long long stride_b, float beta, float* c, int ldc,
                                        long long stride_c, int batch, sgemm_stream stream) {
  if (!valid(layout, op_a, op_b)) return SGEMM_STATUS_BAD_SIZE;
  return answer([&](std::string* why) {
    return sgemm::gemm_strided_batched(layout_of(layout), op_of(op_a), op_of(op_b), m, n, k, alpha,
                                       a, lda, stride_a, b, ldb, stride_b, beta, c, ldc, stride_c,
                                       batch, stream, why);
  });
}

sgemm_status sgemm_gemm_batched(sgemm_layout layout, sgemm_op op_a, sgemm_op op_b, int m, int n,
                                int k, float alpha, const float* const* a_array, int lda,
                                const float* const* b_array, int ldb, float beta,
                                float* const* c_array, int ldc, int batch, sgemm_stream stream) {
  if (!valid(layout, op_a, op_b)) return SGEMM_STATUS_BAD_SIZE;
  return answer([&](std::string* why) {
    return sgemm::gemm_batched(layout_of(layout), op_of(op_a), op_of(op_b), m, n, k, alpha, a_array,
                               lda, b_array, ldb, beta, c_array, ldc, batch, stream, why);
  });
}

sgemm_status sgemm_launch(int rung, int m, int n, int k, float alpha, const float* a, int lda,
                          const float* b, int ldb, float beta, float* c, int ldc,
                          sgemm_stream stream) {
  return answer([&](std::string* why) {
    return sgemm::launch(rung, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream, why);
  });
}

void sgemm_set_pointer_checks(sgemm_pointer_checks checks) {
  sgemm::set_pointer_checks(checks == SGEMM_CALLER_VOUCHES ? sgemm::PointerChecks::caller_vouches
                                                           : sgemm::PointerChecks::cuda);
}

const char* sgemm_last_error(void) { return last_error.c_str(); }

const char* sgemm_status_string(sgemm_status status) {
  if (status < SGEMM_STATUS_OK || status > SGEMM_STATUS_CUDA_ERROR) return "unknown status";
  return sgemm::to_string(static_cast<Status>(status));
}

int sgemm_rung_count(void) { return static_cast<int>(sgemm::rungs().size()); }
int sgemm_rung_number(int index) {
  const sgemm::RungInfo* rung = rung_at(index);
  return rung ? rung->number : -1;
}
const char* sgemm_rung_name(int index) {
  const sgemm::RungInfo* rung = rung_at(index);
  return rung ? rung->name : nullptr;
}
const char* sgemm_rung_summary(int index) {
  const sgemm::RungInfo* rung = rung_at(index);
  return rung ? rung->summary : nullptr;
}
int sgemm_one_call_rung(void) { return sgemm::one_call_rung().number; }

size_t sgemm_workspace_limit(void) { return sgemm::workspace_limit(); }
void sgemm_set_workspace_limit(size_t bytes) { sgemm::set_workspace_limit(bytes); }
sgemm_status sgemm_release_workspace(void) {
  return answer([](std::string* why) { return sgemm::release_workspace(why); });
}

const char* sgemm_version(void) { return SGEMM_VERSION; }

}  // extern "C"
