#include "cli.h"

#include "runnables.h"
#include "sgemm/sgemm.h"

namespace sgemm {

const std::vector<int>& default_sizes() {
  static const std::vector<int> sizes = {128, 256, 512, 1024, 2048, 4096};
  return sizes;
}

namespace {

const Runnable* runnable(const std::string& text) {
  const Runnable* found = find_runnable(text);
  if (!found)
    throw CLI::ValidationError("RUNG", "unknown rung '" + text + "': rungs are 1 to " +
                                           std::to_string(runnables().back().number) +
                                           " or their names, cublas (0), cublas_tf32 (-1), or "
                                           "all (see --list)");
  return found;
}

}  // namespace

ParseResult parse_args(const std::vector<std::string>& args) {
  ParseResult result;
  Options& o = result.options;
  CLI::App app(
      "Validates rungs against cuBLAS (exact and random checks, docs/00_method.md), then times\n"
      "each in turn with the cuBLAS of its precision class: SGEMM for fp32 rungs, TF32 for\n"
      "tf32 rungs. RUNG 0 is cuBLAS SGEMM alone, -1 (cublas_tf32) cuBLAS TF32; `all` runs\n"
      "every rung and ends with a summary table.",
      "sgemm");
  app.footer("rungs:\n" + runnables_help() + "\n" +
             exit_status_help("a check failed (the rung is not timed; the others run)",
                              "a runtime error: no usable GPU, a CUDA or cuBLAS error, or the "
                              "--json file cannot be written (found before any GPU work)"));
  std::vector<std::string> positional;
  app.add_option("RUNG", positional, "rung numbers or names, or all")->type_name("RUNG|all");
  app.add_flag("--list", o.list, "list the rungs and exit");
  app.add_flag("--accuracy", o.accuracy,
               "after timing, measure each result's error against FP64 (cuBLAS DGEMM) on\n"
               "uniform and wide-range inputs, with both cuBLAS references' on the same inputs");
  CommonOptions common(app, o.run);
  app.callback([&] {
    if (o.list) return;
    for (const std::string& arg : positional) {
      if (arg == "all")
        o.all = true;
      else
        o.rungs.push_back(runnable(arg));
    }
    if (o.all && !o.rungs.empty())
      throw CLI::ValidationError("RUNG", "give either rung numbers or all, not both");
    if (o.all)
      for (const Runnable& r : runnables())
        if (!r.reference) o.rungs.push_back(&r);
    if (!o.all && o.rungs.empty())
      throw CLI::ValidationError("RUNG", "no rung given: try `sgemm 5`, `sgemm all` or --help");
    common.finish(square_shapes(default_sizes()));
  });
  bool is_help = false;
  const std::string text = parse(app, args, &is_help, &result.status);
  (is_help ? result.help : result.error) = text;
  if (result.ok()) result.status = kExitOk;
  return result;
}

}  // namespace sgemm
