#include "input_fills.h"

namespace sgemm {

namespace {

// What fills A (or B) for these inputs: big-column and big-rows change A alone.
struct InputFill {
  Fill fill;
  float param;
};
InputFill input_fill(const Inputs& inputs, bool a) {
  const float x = static_cast<float>(inputs.parameter);
  switch (inputs.distribution) {
    case Distribution::grid:
      return {Fill::grid, 0.f};
    case Distribution::normal:
      return {Fill::normal, 0.f};
    case Distribution::phi:
      return {Fill::phi, x};
    case Distribution::exponents:
      return {Fill::exponents, x};
    case Distribution::span:  // A: M x K, its column K/2; B: K x N, its row K/2
      return a ? InputFill{Fill::scaled_column, x} : InputFill{Fill::zero_row, 0.f};
    case Distribution::span_b:
      return a ? InputFill{Fill::zero_column, 0.f} : InputFill{Fill::scaled_row, x};
    case Distribution::k_scales:  // A: M x K, K along its columns; B: K x N, along its rows
      return a ? InputFill{Fill::k_scaled_columns, x} : InputFill{Fill::k_scaled_rows, -x};
    case Distribution::big_column:
      return {a ? Fill::big_column : Fill::uniform, 0.f};
    case Distribution::big_rows:
      return {a ? Fill::big_rows : Fill::uniform, 0.f};
    default:
      return {Fill::uniform, 0.f};
  }
}

// The same fill for a matrix stored transposed (Shape::a_transposed): a column of the matrix is
// a stored row, and a row a stored column. big_rows has no such counterpart: its rows by a hash
// fall along the stored rows, whichever index that is.
InputFill transposed(InputFill f) {
  switch (f.fill) {
    case Fill::big_column:  // a column times 2^30
      return {Fill::scaled_row, 30.f};
    case Fill::scaled_column:
      return {Fill::scaled_row, f.param};
    case Fill::scaled_row:
      return {Fill::scaled_column, f.param};
    case Fill::zero_column:
      return {Fill::zero_row, f.param};
    case Fill::zero_row:
      return {Fill::zero_column, f.param};
    case Fill::k_scaled_columns:
      return {Fill::k_scaled_rows, f.param};
    case Fill::k_scaled_rows:
      return {Fill::k_scaled_columns, f.param};
    default:
      return f;
  }
}

}  // namespace

// Fills A and B of `p` with its inputs, as its shape stores them.
void fill_inputs(const Problem& p, float* A, float* B, uint64_t seed_a, uint64_t seed_b,
                 float padding, cudaStream_t stream) {
  const Shape& s = p.shape;
  InputFill fa = input_fill(p.inputs, true), fb = input_fill(p.inputs, false);
  if (s.a_transposed()) fa = transposed(fa);
  if (s.b_transposed()) fb = transposed(fb);
  const Extent a = s.a_stored(), b = s.b_stored();
  fill_matrix(A, a.lines, a.length, s.a_ld(), fa.fill, seed_a, padding, stream, fa.param);
  fill_matrix(B, b.lines, b.length, s.b_ld(), fb.fill, seed_b, padding, stream, fb.param);
}

}  // namespace sgemm
