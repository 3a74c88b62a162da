// The sentences of the library's statuses: printf-style, with up to two whole numbers.
#pragma once

#include <cstdio>
#include <string>

namespace sgemm {

inline std::string say(const char* fmt, long long a, long long b = 0) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, a, b);
  return text;
}

}  // namespace sgemm
