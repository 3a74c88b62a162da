// Rung 16's plumbing, which no rung teaches: the columns' pass (the rows' residues and
// magnitude bytes, sgemm_ozaki_int8_rows, for the columns of B through a transpose: 8-bit wgmma
// reads both operands K-major), the lists of the rows and columns the certificate flags (a scan
// over a block), the gather and scatter between C (or A, B) and the compact problem the slow
// path multiplies, the slow path itself (rung 15 on the gathered rows or columns; below rung
// 15's shortest K, sgemm_ozaki_int8_short), the size of its buffers, the workspace's layout
// (Layout), the launch's memory (Memory) and the workspace's parts, what each launch zeroes, and
// the launches the launcher hands off: the columns' pass, the reconstruction (one kernel for
// each count of moduli) and the slow path. Rung 16 (kernels/16_ozaki_int8.cu) includes it.
//
// Included inside the rung's namespace, after ozaki_certificate.cuh and the rung's
// reconstruction (it reads Plan, Line, Stats, Tally, Crt, store_residues, kColumnTile,
// kSliceRows, Sample, sample_count, kSlowPathMost, kSlowPathMinK, kQuads, kReconstructRows and
// sgemm_ozaki_int8_reconstruct) and after the rung's declaration of
// every_shape_3xtf32::launch_limited, and in no other way: it has no include guard of its own.

// ---- The columns' pass: the rows' (sgemm_ozaki_int8_rows) through a transpose.

// The columns of B, second pass (the first, sgemm_ozaki_int8_column_stats, sums their
// statistics): block (x, y) takes the merged statistics of its 32 columns (their scales;
// block y = 0 stores the Lines' scale, exponent and flags), then transposes a 128 x 32
// tile of B through shared memory and stores its residues and magnitude bytes K-major: planes
// [count + 1][N][Kp]. Each block adds its rows' tallies to the columns' Lines (zeroed first):
// integer sums, the same in any order.
constexpr int kTransposeDepth = 128;
__global__ void __launch_bounds__(kColumnTile * 8)
    sgemm_ozaki_int8_columns(int K, int N, const float* B, long long ldb, const Stats* stats,
                             Crt crt, uint8_t* planes, int Kp, Line* lines, const Plan* plan) {
  __shared__ float4 tile[kColumnTile][kTransposeDepth / 4 + 1];  // [n][k]: 16-byte rows of k
  if (!plan->integer) return;
  __shared__ int columnScale[kColumnTile], columnExp[kColumnTile];
  const int n0 = blockIdx.x * kColumnTile, k0 = blockIdx.y * kTransposeDepth;
  const int x = threadIdx.x, y = threadIdx.y;
  if (y == 0) {
    if (n0 + x < N) {
      const Stats column = stats[n0 + x];
      columnScale[x] = column.scale(crt.T);
      columnExp[x] = column.magnitude_exponent(K);
      if (blockIdx.y == 0) {
        Line& line = lines[n0 + x];
        line.norm = sqrt(column.squares);
        line.scale = columnScale[x], line.magnitudeExp = columnExp[x];
        atomicOr(&line.flags, column.flags());
      }
    }
  }
  float* t = reinterpret_cast<float*>(tile);
  constexpr int kRow = kTransposeDepth + 4;  // floats from one n to the next
  for (int k = y; k < kTransposeDepth; k += 8)
    t[x * kRow + k] = k0 + k < K && n0 + x < N ? B[(k0 + k) * ldb + n0 + x] : 0.f;
  __syncthreads();
  // Warp y takes columns y, y + 8, ...: its 32 lanes the column's 128 k, 4 each; the tally is
  // summed over the warp (shuffles), and lane 0 adds it to the column's Line.
  const size_t planeBytes = static_cast<size_t>(N) * Kp;
  static_assert(kTransposeDepth == 4 * 32, "a warp covers a column's k, 4 elements a lane");
  for (int n = y; n < kColumnTile; n += 8) {
    const int k = k0 + 4 * x;
    if (n0 + n >= N) break;  // n grows: the rest are past N too
    Tally tally{0, 0};
    if (k < K) {
      const float4 v = tile[n][x];
      const float four[4] = {v.x, v.y, v.z, v.w};
      store_residues(four, columnScale[n], columnExp[n], crt.count,
                     planes + static_cast<size_t>(n0 + n) * Kp + k, planeBytes, tally);
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) {
      tally.integers += __shfl_xor_sync(0xffffffffu, tally.integers, o);
      tally.inexact |= __shfl_xor_sync(0xffffffffu, tally.inexact, o);
    }
    if (x == 0) {
      Line& line = lines[n0 + n];
      atomicAdd(&line.integers, static_cast<double>(tally.integers));  // exact: integers < 2^53
      if (tally.inexact) atomicOr(&line.flags, kInexact);
    }
  }
}

// ---- The slow path's plumbing: which rows (columns) hold uncertified elements, and copies
// between C (or A, B) and the compact problem the slow path multiplies.

// Block 0 lists the flagged rows in order, block 1 the flagged columns: flags [n] -> list
// [count], plan->flagged[side] = count. Each thread takes a contiguous run of flags; a scan over
// the block's threads gives each run its place. One block a side: n is at most a few million.
constexpr int kListThreads = 1024;
__global__ void __launch_bounds__(kListThreads)
    sgemm_ozaki_int8_list(int M, int N, const int* fails, int* lists, Plan* plan) {
  __shared__ int offsets[kListThreads];
  if (!plan->integer) return;
  const int n = blockIdx.x == 0 ? M : N;
  const int* flags = fails + (blockIdx.x == 0 ? 0 : M);
  int* list = lists + (blockIdx.x == 0 ? 0 : M);
  const int run = (n + kListThreads - 1) / kListThreads;
  const int first = threadIdx.x * run, last = min(n, first + run);
  int mine = 0;
  for (int e = first; e < last; ++e) mine += flags[e] != 0;
  offsets[threadIdx.x] = mine;
  __syncthreads();
  for (int d = 1; d < kListThreads; d *= 2) {  // inclusive scan (Hillis-Steele)
    const int add = threadIdx.x >= d ? offsets[threadIdx.x - d] : 0;
    __syncthreads();
    offsets[threadIdx.x] += add;
    __syncthreads();
  }
  int at = offsets[threadIdx.x] - mine;
  for (int e = first; e < last; ++e)
    if (flags[e]) list[at++] = e;
  if (threadIdx.x == kListThreads - 1) plan->flagged[blockIdx.x] = offsets[threadIdx.x];
}

// Copies the listed rows (byRows) or columns of `matrix` (leading dimension ld) into `compact`
// or back (toCompact false): the first *counted of them, a count read here, on the device. Rows:
// compact is [cap][length]; columns: [length][cap]. Copying in, the lines after the last listed
// one, up to a multiple of 128 (rung 15's tile, at most cap), are zeroed: rung 15's tiles read
// them, and their results are never copied back.
__global__ void sgemm_ozaki_int8_compact(float* matrix, long long ld, float* compact,
                                         const int* list, const int* counted, int cap, int length,
                                         bool byRows, bool toCompact) {
  const int count = *counted;
  const int lines = toCompact ? min(cap, (count + 127) / 128 * 128) : count;
  const size_t total = static_cast<size_t>(lines) * length;
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t outer = e / (byRows ? length : lines), inner = e % (byRows ? length : lines);
    const size_t at = byRows ? e : outer * cap + inner;  // in compact
    if ((byRows ? outer : inner) >= static_cast<size_t>(count)) {
      compact[at] = 0.f;  // (copying in only: copying back, lines == count)
      continue;
    }
    float* m = byRows ? matrix + list[outer] * ld + inner : matrix + outer * ld + list[inner];
    if (toCompact)
      compact[at] = *m;
    else
      *m = compact[at];
  }
}

// The slow path where K is below rung 15's shortest (kSlowPathMinK): the elements the plan
// gives it (the flagged rows or columns, or all of C), each a dot product in FP32 on the CUDA
// cores, in the order of k, as rung 15's guard path sums one.
__global__ void sgemm_ozaki_int8_short(int M, int N, int K, float alpha, const float* A,
                                       long long lda, const float* B, long long ldb, float beta,
                                       float* C, long long ldc, const int* fails,
                                       const Plan* plan) {
  const bool whole = plan->latePath[0] > 0, rows = plan->rowsPath[0] > 0;
  const bool columns = plan->columnsPath[1] > 0;
  if (!whole && !rows && !columns) return;
  const long long count = static_cast<long long>(M) * N;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(e / N), j = static_cast<int>(e % N);
    if (!whole && !(rows && fails[i]) && !(columns && fails[M + j])) continue;
    float sum = 0.f;
    for (int k = 0; k < K; ++k) sum = fmaf(A[i * lda + k], B[k * ldb + j], sum);
    float* c = C + i * ldc + j;
    *c = beta == 0.f ? alpha * sum : alpha * sum + beta * *c;  // beta == 0: C is not read
  }
}

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
int slow_path_cap(int n) {
  const int cap = static_cast<int>(std::ceil(kSlowPathMost * n));
  return std::min(n, (cap + 3) / 4 * 4);
}
size_t slow_path_floats(int cap, int K, int length) {  // the gathered operand, then C's part
  return static_cast<size_t>(cap) * K + static_cast<size_t>(cap) * length;
}

// The flagged rows (byRows) or columns of C, computed by rung 15 as one compact GEMM: their rows
// of A (columns of B) and of C gathered, multiplied, C's scattered back. The count is on the
// device (limits: rows, columns, as the Plan holds them); the buffers hold cap lines, and rung 15
// computes only the tiles the count reaches. With a count of 0 every kernel returns at once.
cudaError_t slow_path(const Gemm& g, const int* list, const int* limits, int cap, bool byRows,
                      float* buffers, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  float* compactOperand = buffers;
  float* compactC = buffers + static_cast<size_t>(cap) * K;
  const int* counted = limits + (byRows ? 0 : 1);
  const int threads = 256;
  auto copy = [&](float* matrix, long long ld, float* compact, int length, bool in) {
    const size_t total = static_cast<size_t>(cap) * length;
    // (a grid that walks the buffers: with a count of 0 it returns in one wave)
    const unsigned blocks =
        static_cast<unsigned>(std::min<size_t>((total + threads - 1) / threads, 2048));
    sgemm_ozaki_int8_compact<<<blocks, threads, 0, stream>>>(matrix, ld, compact, list, counted,
                                                             cap, length, byRows, in);
    return cudaGetLastError();
  };
  // Rows: A's rows (K long) and C's (N long). Columns: B's columns (K long) and C's (M long).
  cudaError_t err = byRows ? copy(const_cast<float*>(A), lda, compactOperand, K, true)
                           : copy(const_cast<float*>(B), ldb, compactOperand, K, true);
  if (err == cudaSuccess && beta != 0.f)  // BLAS: with beta == 0, C is not read
    err = copy(C, ldc, compactC, byRows ? N : M, true);
  if (err != cudaSuccess) return err;
  const Gemm compact =
      byRows ? Gemm{cap, N, K, alpha, compactOperand, K, B, ldb, beta, compactC, N}
             : Gemm{M, cap, K, alpha, A, lda, compactOperand, cap, beta, compactC, cap};
  err = every_shape_3xtf32::launch_limited(compact, limits, stream);
  if (err == cudaSuccess) err = copy(C, ldc, compactC, byRows ? N : M, false);
  return err;
}

// ---- The launcher's plumbing: the launch's memory, the workspace's parts, what each launch
// zeroes, and the launches the launcher hands off (the columns' pass, the reconstruction, the
// slow path).

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
cudaError_t zero_workspace(uint8_t* w, const Layout& L, int M, int N, cudaStream_t stream) {
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

// The columns' pass, queued after the rows': a block 32 columns and kTransposeDepth of K.
cudaError_t queue_columns(const Gemm& g, const Stats* stats, const Crt& crt, uint8_t* planes,
                          int Kp, Line* lines, const Plan* plan, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  const dim3 grid((N + kColumnTile - 1) / kColumnTile, (K + kTransposeDepth - 1) / kTransposeDepth);
  sgemm_ozaki_int8_columns<<<grid, dim3(kColumnTile, 8), 0, stream>>>(K, N, B, ldb, stats, crt,
                                                                      planes, Kp, lines, plan);
  return cudaGetLastError();
}

// The reconstruction, one kernel for each count of moduli (a template argument), a block 256
// columns and 4 kReconstructRows rows of C.
cudaError_t queue_reconstruction(int count, const Gemm& g, const uint8_t* residues, int ldr,
                                 const Crt& crt, const Line* lines, const int* fails,
                                 const Plan* plan, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  const dim3 block(kQuads, 4);
  const int rowsPerBlock = 4 * kReconstructRows;
  const dim3 grid((N + 4 * kQuads - 1) / (4 * kQuads),
                  std::min((M + rowsPerBlock - 1) / rowsPerBlock, 65535));
  constexpr decltype(&sgemm_ozaki_int8_reconstruct<kMaxModuli>) kReconstruct[] = {
      sgemm_ozaki_int8_reconstruct<4>, sgemm_ozaki_int8_reconstruct<5>,
      sgemm_ozaki_int8_reconstruct<6>, sgemm_ozaki_int8_reconstruct<7>,
      sgemm_ozaki_int8_reconstruct<8>};
  static_assert(kMinModuli == 4 && kMaxModuli == 8, "one kernel for each count of moduli");
  kReconstruct[count - kMinModuli]<<<grid, block, 0, stream>>>(M, N, alpha, beta, C, ldc, residues,
                                                               ldr, crt, lines, fails, plan);
  return cudaGetLastError();
}

// The slow path, after the reconstruction: rung 15 on the flagged rows, on the flagged columns,
// or on the whole problem (at most one has work); below its K (memory.shortK),
// sgemm_ozaki_int8_short.
cudaError_t queue_slow_path(const Gemm& g, const Memory& memory, const int* fails, const int* lists,
                            Plan* plan, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  cudaError_t err;
  if (memory.shortK) {
    const long long elements = static_cast<long long>(M) * N;
    sgemm_ozaki_int8_short<<<static_cast<unsigned>(std::min((elements + 255) / 256, 65535LL)), 256,
                             0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, fails,
                                          plan);
    err = cudaGetLastError();
  } else {
    err =
        slow_path(g, lists, plan->rowsPath, memory.rowsCap, true, memory.rowsBuffers.get(), stream);
    if (err == cudaSuccess)
      err = slow_path(g, lists + M, plan->columnsPath, memory.columnsCap, false,
                      memory.columnsBuffers.get(), stream);
    if (err == cudaSuccess) err = every_shape_3xtf32::launch_limited(g, plan->latePath, stream);
  }
  return err;
}
