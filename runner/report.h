// Tables and JSON for measurements: one home for how results are shown and stored.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "device.h"
#include "harness.h"

namespace sgemm {

struct Measurement {
  int rung = 0;
  std::string name;  // "blocktiling_2d", or "cublas" for rung 0
  Problem problem;
  bool checked = false;      // at least one check ran
  bool pass = true;          // every check that ran passed
  std::string check_text;    // "exact PASS, random PASS" or the failure
  double max_abs_error = 0;  // over the checks that ran
  bool timed = false;
  Timing timing;
  Timing cublas;
  double gflops() const { return timed ? timing.gflops(problem) : 0; }
  double cublas_gflops() const { return timed ? cublas.gflops(problem) : 0; }
  double percent_of_cublas() const {
    return timed ? 100.0 * cublas.median_ms / timing.median_ms : 0;
  }
};

// "NVIDIA H100 80GB HBM3 | 132 SMs | SM clock 1980 MHz now, 1980 max | driver ... | CUDA ..."
std::string describe(const GpuInfo& gpu);

// One rung's table: size, GFLOP/s, cuBLAS GFLOP/s, % of cuBLAS, max error, check.
// Rows are printed as they are measured, so a long run shows progress.
void print_rung_header(std::ostream& out);
void print_rung_row(std::ostream& out, const Measurement& row);

// The ladder at one problem: a row per rung (the last problem each rung ran).
void print_summary(std::ostream& out, const std::vector<Measurement>& rows);

// JSON: {"context": {gpu, clocks, driver, cuda, ...}, "results": [ ... ]}.
void write_json(const std::string& path, const GpuInfo& gpu, const std::vector<Measurement>& rows);

}  // namespace sgemm
