// The preload library's switches and log (options.h).
#include "options.h"

#include <cctype>
#include <string>

namespace sgemm::preload {
namespace {

// The value, trimmed and lower-case.
std::string normalized(const char* value) {
  std::string text = value ? value : "";
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!text.empty() && space(text.back())) text.pop_back();
  size_t first = 0;
  while (first < text.size() && space(text[first])) ++first;
  text.erase(0, first);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

bool preload_enabled(const char* value) {
  const std::string v = normalized(value);
  return !(v == "0" || v == "off" || v == "false" || v == "no");
}

bool log_enabled(const char* value) {
  const std::string v = normalized(value);
  return v == "1" || v == "on" || v == "true" || v == "yes";
}

std::string log_line(const std::string& entry, const std::string& verb, const std::string& reason) {
  std::string line = "sgemm_preload: " + entry + ": " + verb;
  if (!reason.empty()) line += " (" + reason + ")";
  return line;
}

bool Once::first(const std::string& entry, const std::string& decision) {
  std::lock_guard<std::mutex> lock(mutex_);
  return seen_.insert(entry + '\n' + decision).second;
}

// The values of cublas_api.h and library_types.h (CUDA 12 and 13), written out so that these
// functions need no CUDA header.
std::string compute_type_name(int compute_type) {
  switch (compute_type) {
    case 64:
      return "CUBLAS_COMPUTE_16F";
    case 65:
      return "CUBLAS_COMPUTE_16F_PEDANTIC";
    case 68:
      return "CUBLAS_COMPUTE_32F";
    case 69:
      return "CUBLAS_COMPUTE_32F_PEDANTIC";
    case 74:
      return "CUBLAS_COMPUTE_32F_FAST_16F";
    case 75:
      return "CUBLAS_COMPUTE_32F_FAST_16BF";
    case 77:
      return "CUBLAS_COMPUTE_32F_FAST_TF32";
    case 78:
      return "CUBLAS_COMPUTE_32F_EMULATED_16BFX9";
    case 70:
      return "CUBLAS_COMPUTE_64F";
    case 71:
      return "CUBLAS_COMPUTE_64F_PEDANTIC";
    case 79:
      return "CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT";
    case 72:
      return "CUBLAS_COMPUTE_32I";
    case 73:
      return "CUBLAS_COMPUTE_32I_PEDANTIC";
  }
  return std::to_string(compute_type);
}

std::string data_type_name(int data_type) {
  switch (data_type) {
    case 0:
      return "CUDA_R_32F";
    case 1:
      return "CUDA_R_64F";
    case 2:
      return "CUDA_R_16F";
    case 3:
      return "CUDA_R_8I";
    case 4:
      return "CUDA_C_32F";
    case 5:
      return "CUDA_C_64F";
    case 6:
      return "CUDA_C_16F";
    case 10:
      return "CUDA_R_32I";
    case 14:
      return "CUDA_R_16BF";
    case 28:
      return "CUDA_R_8F_E4M3";
    case 29:
      return "CUDA_R_8F_E5M2";
  }
  return std::to_string(data_type);
}

std::string math_mode_name(int math_mode) {
  std::string name;
  switch (math_mode & 0xf) {
    case 0:
      name = "CUBLAS_DEFAULT_MATH";
      break;
    case 1:
      name = "CUBLAS_TENSOR_OP_MATH";
      break;
    case 2:
      name = "CUBLAS_PEDANTIC_MATH";
      break;
    case 3:
      name = "CUBLAS_TF32_TENSOR_OP_MATH";
      break;
    case 4:
      name = "CUBLAS_FP32_EMULATED_BF16X9_MATH";
      break;
    case 8:
      name = "CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH";
      break;
    default:
      name = std::to_string(math_mode & 0xf);
  }
  if (math_mode & 16) name += " | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION";
  return name;
}

bool math_mode_takes(int math_mode) {
  if (math_mode & ~0x1f) return false;  // bits cuBLAS may add later: cuBLAS answers
  const int mode = math_mode & 0xf;
  return mode == 0 || mode == 2;  // CUBLAS_DEFAULT_MATH, CUBLAS_PEDANTIC_MATH
}

bool compute_type_takes(int compute_type) { return compute_type == 68 || compute_type == 69; }

}  // namespace sgemm::preload
