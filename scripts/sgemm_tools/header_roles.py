"""What each header a rung includes holds, as the README's copy-needs fact names it
(scripts/docs-facts): a header a rung includes must be here, with what it holds."""

HEADERS = {
    "launchers.h": "`kernels/launchers.h` (every rung's launcher, one signature) with what it "
                   "reads: `kernels/ladder.inc`, `kernels/rung_id.h`, "
                   "`kernels/runtime/launch_answer.h` and `include/sgemm/sgemm.h`",
    "runtime/device.h": "`kernels/runtime/device.h` with `device.cu` (device facts, the "
                        "shared-memory opt-in, the Hopper check)",
    "runtime/tensor_map.h": "`kernels/runtime/tensor_map.h` with `tensor_map.cu` (tensor maps)",
    "runtime/batch.h": "`kernels/runtime/batch.h` (a batch's problems, for the batched "
                       "instantiations)",
    "runtime/workspace.h": "`kernels/runtime/workspace.h` with `workspace.cu` (the workspace)",
    "hopper/hopper.cuh": "`kernels/hopper/hopper.cuh` (mbarriers, TMA, wgmma)",
    "hopper/pipeline.cuh": "`kernels/hopper/pipeline.cuh` (the mbarrier ring, the producer loop, "
                           "the register split, the tile order)",
    "split_3xtf32/split_3xtf32.cuh": "`kernels/split_3xtf32/split_3xtf32.cuh` (the 3xTF32 split, "
                                     "the guard path, the pre-pass)",
    "split_3xtf32/every_shape_slices.cuh": "`kernels/split_3xtf32/every_shape_slices.cuh` (rung "
                                           "15's plumbing: loads at any alignment, the pre-pass "
                                           "in one launch, the slices' sum)",
    "split_3xtf32/batch_prepass.cuh": "`kernels/split_3xtf32/batch_prepass.cuh` (rung 15's "
                                      "pre-pass for a whole batch: its planes and one launch)",
    "ozaki/ozaki_bits.cuh": "`kernels/ozaki/ozaki_bits.cuh` (the moduli, the CRT's constants, "
                            "scaling to integers and residues from the bits, exact FP64 from "
                            "bits)",
    "ozaki/ozaki_statistics.cuh": "`kernels/ozaki/ozaki_statistics.cuh` (the lines' statistics, "
                                  "the Plan, the magnitude bytes, block reductions)",
    "ozaki/ozaki_certificate.cuh": "`kernels/ozaki/ozaki_certificate.cuh` (the certificate, its "
                                   "budget, the prediction)",
    "ozaki/ozaki_residues.cuh": "`kernels/ozaki/ozaki_residues.cuh` (the residues' planes, the "
                                "columns' pass)",
    "ozaki/ozaki_workspace.cuh": "`kernels/ozaki/ozaki_workspace.cuh` (the workspace's layout "
                                 "and the launch's memory)",
    "ozaki/ozaki_slow_path.cuh": "`kernels/ozaki/ozaki_slow_path.cuh` (the flagged lists, "
                                 "gather and scatter, the slow path)",
    "entries.h": "`kernels/entries.h` (what a rung offers beyond its launcher: choices forced, and "
                 "rung 15 on part of C, which rung 16's slow path runs)",
    "best/best_choice.h": "`kernels/best/best_choice.h` (the choice, as host code)",
    "rung_id.h": "`kernels/rung_id.h` (rungs as typed handles, `RungId`, from "
                 "`kernels/ladder.inc`)",
    "best/best_tables.h": "`kernels/best/best_tables.h` with `kernels/best/table_h200.inc` and "
                          "`_h100.inc` (the tables of measured rates, one per GPU)",
}
