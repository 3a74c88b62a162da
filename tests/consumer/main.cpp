// A user's program of the ladder library (tests/consumer): it lists the rungs and checks that
// a bad call gets a status and a sentence instead of a launch. No GPU is needed.
#include <cstdio>
#include <string>

#include "sgemm.h"

int main() {
  for (const sgemm::RungInfo& rung : sgemm::rungs()) {
    std::printf("rung %d %s: %s\n", rung.number, rung.name, rung.summary);
  }
  std::string why;
  const sgemm::Status status = sgemm::launch(/*rung*/ 1, /*M*/ 0, 8, 8, 1.f, nullptr, 8, nullptr, 8,
                                             0.f, nullptr, 8, /*stream*/ nullptr, &why);
  std::printf("launch with M = 0: %s: %s\n", sgemm::to_string(status), why.c_str());
  if (sgemm::rungs().empty() || status != sgemm::Status::bad_size || why.empty()) {
    std::fprintf(stderr, "consumer: expected rungs and Status::bad_size with a message\n");
    return 1;
  }
  return 0;
}
