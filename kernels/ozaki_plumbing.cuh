// Rung 16's plumbing, which no rung teaches: the lists of the rows and columns the certificate
// flags (a scan over a block), the gather and scatter between C (or A, B) and the compact
// problem the slow path multiplies, the slow path itself (rung 15 on the gathered rows or
// columns; below rung 15's shortest K, sgemm_ozaki_int8_short), the size of its buffers, and
// the workspace's layout (Layout). Rung 16 (kernels/16_ozaki_int8.cu) includes it.
//
// Included inside the rung's namespace, after ozaki_certificate.cuh (it reads Plan, Line,
// Stats, kSliceRows, sample_count and kSlowPathMost) and after the rung's declaration of
// every_shape_3xtf32::launch_limited, and in no other way: it has no include guard of its own.

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
