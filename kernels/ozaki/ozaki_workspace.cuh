// Rung 16's memory, which no rung teaches: the workspace's layout (Layout), the size of the slow
// path's buffers, the launch's memory (Memory: the workspace and those buffers, allocated before
// anything is queued), the workspace's parts that the kernels take (Parts) and what each launch
// zeroes. Rung 16 (kernels/16_ozaki_int8.cu) includes it at its top; its code is in namespace
// sgemm::ozaki.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "ozaki/ozaki_certificate.cuh"  // Sample, kSlowPathMost, kSlowPathMinK
#include "ozaki/ozaki_statistics.cuh"   // Stats, Line, Plan, sample_count, kSliceRows
#include "runtime/workspace.h"          // runtime::Workspace

namespace sgemm::ozaki {

// ---- The workspace's layout, and the slow path's buffers.

inline size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

// The workspace: residues and magnitude bytes of A [count + 1][M][Kp] and of B transposed
// [count + 1][N][Kp] (Kp = K rounded up to 16: TMA's row pitch), the products' residues
// [count][M][ldr] (ldr = N rounded up to 16), the Lines (M rows, then N columns), the
// columns' partial statistics [slices of K][N], the fail flags and lists (M, then N), the
// Plan, and the prediction's sample (the sampled rows' magnitude bytes [rows][Kq], the sampled
// columns' [Kq / 4][columns] words, the rows' Lines, then what each launch zeroes: Sample's G,
// failure marks and tallies; Kq = K rounded up to 4); each part 256-byte aligned.
struct Layout {
  int Kp, ldr, Kq;
  size_t a, b, r, lines, stats, partial, fails, lists, plan, sampleRows, sampleColumns, rowLines,
      zeroed, G, rowFails, columnFails, columnInexact, columnIntegers, bytes;
  Layout(int M, int N, int K, int count) {
    Kp = static_cast<int>(round_up(K, 16));
    ldr = static_cast<int>(round_up(N, 16));
    Kq = static_cast<int>(round_up(K, 4));
    const size_t rows = sample_count(M), columns = sample_count(N);
    const size_t mn = static_cast<size_t>(M) + N;
    const size_t slices = (K + kSliceRows - 1) / kSliceRows;
    a = 0;
    b = a + round_up(static_cast<size_t>(count + 1) * M * Kp, 256);
    r = b + round_up(static_cast<size_t>(count + 1) * N * Kp, 256);
    lines = r + round_up(static_cast<size_t>(count) * M * ldr, 256);
    stats = lines + round_up(mn * sizeof(Line), 256);
    partial = stats + round_up(mn * sizeof(Stats), 256);
    fails = partial + round_up(slices * N * sizeof(Stats), 256);
    lists = fails + round_up(mn * sizeof(int), 256);
    plan = lists + round_up(mn * sizeof(int), 256);
    sampleRows = plan + round_up(sizeof(Plan), 256);
    sampleColumns = sampleRows + round_up(rows * Kq, 256);
    rowLines = sampleColumns + round_up(columns * Kq, 256);
    zeroed = G = rowLines + round_up(rows * sizeof(Line), 256);
    rowFails = G + round_up(rows * columns * sizeof(int), 256);
    columnFails = rowFails + round_up(rows * sizeof(int), 256);
    columnInexact = columnFails + round_up(columns * sizeof(int), 256);
    columnIntegers = columnInexact + round_up(columns * sizeof(int), 256);
    bytes = columnIntegers + columns * sizeof(unsigned long long);
  }
};

// The slow path's buffers: cap lines of C (rows or columns), kSlowPathMost of them, a multiple of
// 4 (16-byte aligned rows for rung 15's loads of the gathered columns) up to n.
inline int slow_path_cap(int n) {
  const int cap = static_cast<int>(std::ceil(kSlowPathMost * n));
  return std::min(n, (cap + 3) / 4 * 4);
}
inline size_t slow_path_floats(int cap, int K, int length) {  // the operand, then C's part
  return static_cast<size_t>(cap) * K + static_cast<size_t>(cap) * length;
}

// ---- The launch's memory, the workspace's parts, what each launch zeroes.

// The launch's memory, allocated before anything is queued, each part only where those before
// it were: the workspace (Layout) and the slow path's buffers, rowsCap rows of C and
// columnsCap columns (below rung 15's shortest K the slow path is sgemm_ozaki_int8_short, which
// needs no buffers).
struct Memory {
  const Layout L;
  const bool shortK;
  const int rowsCap, columnsCap;
  runtime::Workspace<uint8_t> W;
  runtime::Workspace<float> rowsBuffers, columnsBuffers;
  Memory(int M, int N, int K, int count, cudaStream_t stream)
      : L(M, N, K, count),
        shortK(K < kSlowPathMinK),
        rowsCap(shortK ? M : slow_path_cap(M)),
        columnsCap(shortK ? N : slow_path_cap(N)),
        W(L.bytes, stream),
        rowsBuffers(shortK || W.error() != cudaSuccess ? 0 : slow_path_floats(rowsCap, K, N),
                    stream),
        columnsBuffers(shortK || W.error() != cudaSuccess || rowsBuffers.error() != cudaSuccess
                           ? 0
                           : slow_path_floats(columnsCap, K, M),
                       stream) {}
  cudaError_t error() const {  // the first that failed
    return W.error() != cudaSuccess             ? W.error()
           : rowsBuffers.error() != cudaSuccess ? rowsBuffers.error()
                                                : columnsBuffers.error();
  }
};

// The workspace's parts that the kernels take, at their places in Layout L.
struct Parts {
  Line* lines;     // M rows, then N columns
  Stats* stats;    // likewise
  Stats* partial;  // the columns' statistics, a slice of K at a time
  int* fails;      // the certificate's flags: rows, then columns
  int* lists;      // the flagged rows, then the flagged columns
  Plan* plan;      // device memory: its fields' addresses only
  Sample sample;
};
inline Parts parts_of(uint8_t* w, const Layout& L) {
  return {reinterpret_cast<Line*>(w + L.lines),
          reinterpret_cast<Stats*>(w + L.stats),
          reinterpret_cast<Stats*>(w + L.partial),
          reinterpret_cast<int*>(w + L.fails),
          reinterpret_cast<int*>(w + L.lists),
          reinterpret_cast<Plan*>(w + L.plan),
          Sample{reinterpret_cast<Line*>(w + L.rowLines), reinterpret_cast<int*>(w + L.G),
                 reinterpret_cast<int*>(w + L.rowFails), reinterpret_cast<int*>(w + L.columnFails),
                 reinterpret_cast<int*>(w + L.columnInexact),
                 reinterpret_cast<unsigned long long*>(w + L.columnIntegers)}};
}

// What each launch zeroes, in stream order: the columns' Lines (their tallies are added), the
// fail flags, the Plan, and the sample's sums and marks.
inline cudaError_t zero_workspace(uint8_t* w, const Layout& L, int M, int N, cudaStream_t stream) {
  const Parts p = parts_of(w, L);
  const size_t mn = static_cast<size_t>(M) + N;
  cudaError_t err;
  if ((err = cudaMemsetAsync(p.lines + M, 0, N * sizeof(Line), stream)) != cudaSuccess ||
      (err = cudaMemsetAsync(p.fails, 0, mn * sizeof(int), stream)) != cudaSuccess ||
      (err = cudaMemsetAsync(p.plan, 0, sizeof(Plan), stream)) != cudaSuccess ||
      (err = cudaMemsetAsync(w + L.zeroed, 0, L.bytes - L.zeroed, stream)) != cudaSuccess)
    return err;
  return cudaSuccess;
}

}  // namespace sgemm::ozaki
