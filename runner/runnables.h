// The one table of what the front doors run: the cuBLAS references and every rung of the
// library's list, by number and name.
#pragma once

#include <string>
#include <vector>

#include "sgemm/sgemm.h"  // Precision, RungInfo

namespace sgemm {

constexpr int kCublasRung = 0;       // rung 0 is cuBLAS SGEMM itself
constexpr int kCublasTf32Rung = -1;  // cuBLAS in TF32 mode, the reference of the tf32 rungs

// Everything a front door runs: the references, cuBLAS SGEMM (number 0) and cuBLAS TF32
// (number -1), then every rung of the kernel list. The one table of names: a new rung or
// reference changes only it.
struct Runnable {
  int number;
  std::string name;           // "cublas", "cublas_tf32", or a rung's name (ladder.inc)
  std::string summary;        // one line: what it is, or what the rung changes
  bool reference;             // timed alone and never checked: the rungs are measured against it
  Precision precision;        // a rung's class; a reference's: the rungs it is compared with
  const RungInfo* rung;       // the library's entry, with its launcher (null for a reference)
  std::string label() const;  // "0 cublas", "6 vectorized"
  std::string id() const;     // "cublas", "rung:06_vectorized" (benchmark names, file stems)
};
const std::vector<Runnable>& runnables();
const Runnable* find_runnable(int number);  // nullptr when there is none
// By name ("cublas_tf32", a rung's) or number as typed ("6", "-1"); nullptr when none.
const Runnable* find_runnable(const std::string& text);
// The cuBLAS that rungs of `precision` are checked against and compared with.
const Runnable& reference_for(Precision precision);

// The runnable with this number, or Error naming it.
const Runnable& require_runnable(int number);

}  // namespace sgemm
