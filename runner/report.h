// Tables and JSON for measurements: one home for how results are shown and stored.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "device.h"
#include "harness.h"
#include "measure.h"

namespace sgemm {

// "NVIDIA H100 80GB HBM3 | 132 SMs | SM clock 1980 MHz now, 1980 max | driver ... | CUDA ..."
std::string describe(const GpuInfo& gpu);

// One rung's table: size, GFLOP/s, its reference's GFLOP/s (the column is named after the
// reference), % of the reference, max error, check. Rows are printed as they are measured,
// so a long run shows progress; a row's errors against FP64 follow it when measured.
void print_rung_header(std::ostream& out, const std::string& reference);
void print_rung_row(std::ostream& out, const Measurement& row);

// The ladder at one problem: a row per rung (the last problem each rung ran), each with the
// reference its % is of.
void print_summary(std::ostream& out, const std::vector<Measurement>& rows);

// The one JSON writer: {"context": {gpu, clocks, driver, cuda, ...settings}, "results": [...]},
// a row per measurement. Numbers that are not finite are written as null.
void write_json(const std::string& path, const GpuInfo& gpu, const std::vector<Measurement>& rows,
                const nlohmann::ordered_json& settings = nlohmann::ordered_json::object());

}  // namespace sgemm
