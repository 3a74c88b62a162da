"""What each header a rung includes holds, as the README's copy-needs fact names it
(scripts/docs-facts): a header a rung includes must be here, with what it holds."""

HEADERS = {
    "sgemm/sgemm.h": "`include/sgemm/sgemm.h`",
    "runtime.h": "`library/runtime.h` with `library/runtime.cu` (the shared-memory opt-in, the "
                 "workspace, tensor maps, the Hopper check)",
    "dispatch.h": "`library/dispatch.h` with `library/dispatch.cu` (the fallback chain)",
    "hopper/hopper.cuh": "`kernels/hopper/hopper.cuh` (mbarriers, TMA, wgmma)",
    "hopper/pipeline.cuh": "`kernels/hopper/pipeline.cuh` (the mbarrier ring, the producer loop, the register "
                    "split, the tile order)",
    "split_3xtf32/split_3xtf32.cuh": "`kernels/split_3xtf32/split_3xtf32.cuh` (the 3xTF32 split, the guard path, the "
                        "pre-pass)",
    "split_3xtf32/every_shape_slices.cuh": "`kernels/split_3xtf32/every_shape_slices.cuh` (rung 15's plumbing: loads "
                                "at any alignment, the pre-pass in one launch, the main kernel's "
                                "launch with its cluster, the slices' sum)",
    "ozaki_bits.cuh": "`kernels/ozaki_bits.cuh` (the modulus as a compile-time constant, "
                      "scaling to integers and residues from the bits, exact FP64 from bits)",
    "ozaki_statistics.cuh": "`kernels/ozaki_statistics.cuh` (the lines' statistics, the Plan, "
                            "the magnitude bytes, block reductions)",
    "ozaki_certificate.cuh": "`kernels/ozaki_certificate.cuh` (the certificate, its budget, "
                             "the prediction)",
    "ozaki_plumbing.cuh": "`kernels/ozaki_plumbing.cuh` (the columns' transpose, the flagged "
                          "lists, gather and scatter, the slow path, the workspace's layout and "
                          "memory)",
    "best/best_choice.h": "`kernels/best/best_choice.h` (the choice, as host code)",
    "rung_id.h": "`kernels/rung_id.h` (rungs as typed handles, `RungId`, from "
                 "`kernels/ladder.inc`)",
    "best/best_tables.h": "`kernels/best/best_tables.h` with `kernels/best/table_h200.inc` and "
                     "`_h100.inc` (the tables of measured rates, one per GPU; the rungs they "
                     "choose among come from the library)",
}
