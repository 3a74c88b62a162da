// The transpose that launch() runs before a rung when an operand is transposed in row-major
// terms (transpose.h): out = in^T through shared-memory tiles. Plumbing, not a lesson: each block
// reads a kTile x kTile tile of `in` along its rows (coalesced), and writes it along the rows of
// `out` (coalesced too), the turn made in shared memory. Bandwidth-bound: one read and one write
// of every element.
#include "transpose.h"

namespace sgemm::runtime {
namespace {

constexpr int kTile = 32;     // a tile is kTile x kTile elements: one warp reads a tile row
constexpr int kRowsStep = 8;  // a block is kTile x kRowsStep threads, each moves kTile/8 elements
static_assert(kTile % kRowsStep == 0, "a block's rows step through the tile evenly");

// Block (bx, by) moves the tile of `in` at rows by*kTile.., columns bx*kTile... Offsets are
// 64-bit: rows * ld may pass 2^31 before the API's limits are applied by the caller.
__global__ void transpose_kernel(const float* __restrict__ in, int rows, int cols, int ld_in,
                                 float* __restrict__ out, int ld_out) {
  // +1 column: a warp that reads a column of the tile touches 32 different banks.
  __shared__ float tile[kTile][kTile + 1];  // (row of in, column of in) within the tile
  const int col0 = blockIdx.x * kTile, row0 = blockIdx.y * kTile;
  // Read: thread (x, y) takes column col0 + x of rows row0 + y, + y + kRowsStep, ...
  for (int dy = threadIdx.y; dy < kTile; dy += kRowsStep) {
    const int row = row0 + dy, col = col0 + threadIdx.x;
    if (row < rows && col < cols)
      tile[dy][threadIdx.x] = in[static_cast<long long>(row) * ld_in + col];
  }
  __syncthreads();
  // Write: out's row col0 + dy holds in's column col0 + dy; thread x writes out's column
  // row0 + x, which is in's row row0 + x.
  for (int dy = threadIdx.y; dy < kTile; dy += kRowsStep) {
    const int out_row = col0 + dy, out_col = row0 + threadIdx.x;
    if (out_row < cols && out_col < rows)
      out[static_cast<long long>(out_row) * ld_out + out_col] = tile[threadIdx.x][dy];
  }
}

}  // namespace

cudaError_t transpose(const float* in, int rows, int cols, int ld_in, float* out, int ld_out,
                      cudaStream_t stream) {
  // Grid y is at most 65535 tiles of rows: 2^21 rows, above the API's kMaxDimension (2^20).
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
  transpose_kernel<<<grid, dim3(kTile, kRowsStep), 0, stream>>>(in, rows, cols, ld_in, out, ld_out);
  return cudaGetLastError();
}

}  // namespace sgemm::runtime
