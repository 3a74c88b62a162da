"""Pure functions, no GPU and no framework: how an array's shape and strides map onto the C
ABI's (layout, op, leading dimension) arguments, and what a __cuda_array_interface__ says.

Strides here are in elements (a float32 array's byte strides divided by 4). A matrix of
`rows` x `cols` with strides (s_row, s_col) is BLAS-stored

  row by row    when s_col == 1 and s_row >= cols  (leading dimension s_row), or
  column-wise   when s_row == 1 and s_col >= rows  (leading dimension s_col);

a dimension of size 1 may have any stride. Anything else (a stride of 0 from broadcasting,
negative strides, rows that overlap, neither stride 1) is not BLAS-compatible: the caller
copies that operand (an input) or refuses it (an output).

The C ABI takes one layout for all three matrices, op N or T for A and B, and C with op N.
C's own order sets the layout; an operand stored in the other order is op T (which the
library turns into op N with a transposed copy in its workspace, as sgemm.h says).
"""

ROW_MAJOR, COL_MAJOR = 0, 1  # sgemm_layout
OP_N, OP_T = 0, 1  # sgemm_op
INT_MAX = 2**31 - 1

# Why an operand needs a copy (the value plan() gives for it instead of (op, ld)).
COPY = None


def storage(rows, cols, s_row, s_col):
    """The orders in which a rows x cols matrix with these element strides is BLAS-stored, as
    {ROW_MAJOR: ld, COL_MAJOR: ld} (empty when neither; both for a vector or 1 x 1). A
    leading dimension that does not fit the C ABI's int counts as not stored."""
    out = {}
    if (cols == 1 or s_col == 1) and (rows == 1 or s_row >= max(cols, 1)):
        ld = s_row if rows > 1 else max(cols, 1)
        if ld <= INT_MAX:
            out[ROW_MAJOR] = ld
    if (rows == 1 or s_row == 1) and (cols == 1 or s_col >= max(rows, 1)):
        ld = s_col if cols > 1 else max(rows, 1)
        if ld <= INT_MAX:
            out[COL_MAJOR] = ld
    return out


class Plan(tuple):
    """(layout, op_a, lda, op_b, ldb, ldc); op_a/lda (op_b/ldb) are None where A (B) must be
    copied first."""
    __slots__ = ()

    def __new__(cls, layout, op_a, lda, op_b, ldb, ldc):
        return tuple.__new__(cls, (layout, op_a, lda, op_b, ldb, ldc))

    layout = property(lambda self: self[0])
    op_a = property(lambda self: self[1])
    lda = property(lambda self: self[2])
    op_b = property(lambda self: self[3])
    ldb = property(lambda self: self[4])
    ldc = property(lambda self: self[5])


def plan(m, n, k, a_strides, b_strides, c_strides):
    """The C ABI's arguments for C (m x n) = op(A) (m x k) op(B) (k x n), each given by its
    element strides (s_row, s_col) as the caller sees it. C's order is the layout; where C is
    both (a vector), the order that leaves fewer operands transposed. Raises ValueError when C
    is not BLAS-stored (an output is never copied). An operand that is not BLAS-stored gets
    op None: copy it (contiguous) and plan again."""
    sc = storage(m, n, c_strides[0], c_strides[1])
    if not sc:
        raise ValueError(
            f"the output ({m} x {n}, element strides {tuple(c_strides)}) is not BLAS-compatible:"
            " one of its strides must be 1 and the other at least its row or column length")
    sa = storage(m, k, a_strides[0], a_strides[1])
    sb = storage(k, n, b_strides[0], b_strides[1])
    layout, best = None, None
    for candidate in (ROW_MAJOR, COL_MAJOR):
        if candidate in sc:
            cost = (candidate not in sa) + (candidate not in sb)
            if best is None or cost < best:
                layout, best = candidate, cost
    op_a, lda = _op(sa, layout)
    op_b, ldb = _op(sb, layout)
    return Plan(layout, op_a, lda, op_b, ldb, sc[layout])


def row_major_op(rows, cols, s_row, s_col):
    """(op, ld) of an operand (rows, cols >= 1) in a row-major plan, or None where it must be
    copied: _op(storage(...), ROW_MAJOR) without the dict, for the per-call fast path."""
    if (cols == 1 or s_col == 1) and (rows == 1 or s_row >= cols):
        ld = s_row if rows > 1 else cols
        if ld <= INT_MAX:
            return OP_N, ld
    if (rows == 1 or s_row == 1) and (cols == 1 or s_col >= rows):
        ld = s_col if cols > 1 else rows
        if ld <= INT_MAX:
            return OP_T, ld
    return None


def _op(stored, layout):
    if not stored:
        return None, None
    if layout in stored:
        return OP_N, stored[layout]
    return OP_T, stored[1 - layout]


def batch_stride(batch, stride, name, shared_ok=True):
    """The element stride between a 3-D operand's problems for sgemm_gemm_strided_batched:
    0 for a batch of one (or a broadcast one, stride 0, where `shared_ok`). None when the
    stride cannot be passed (negative): copy. Raises ValueError for an output whose problems
    would overlap (stride 0)."""
    if batch <= 1:
        return 0
    if stride < 0:
        return None
    if stride == 0 and not shared_ok:
        raise ValueError(f"{name} has batch stride 0: the problems of the output must not "
                         "overlap")
    return stride


# ---- __cuda_array_interface__ (versions 0 to 3) ------------------------------------------

_FLOAT32 = ("<f4", "=f4", "f4")  # little-endian machines only: CUDA is


class ArrayInterface(tuple):
    """What a __cuda_array_interface__ says, checked: (ptr, shape, strides in elements,
    readonly, stream). stream is None (no synchronisation asked, or version < 3) or an int
    handle (1: the legacy default stream, 2: the per-thread default stream)."""
    __slots__ = ()

    def __new__(cls, ptr, shape, strides, readonly, stream):
        return tuple.__new__(cls, (ptr, shape, strides, readonly, stream))

    ptr = property(lambda self: self[0])
    shape = property(lambda self: self[1])
    strides = property(lambda self: self[2])
    readonly = property(lambda self: self[3])
    stream = property(lambda self: self[4])


def dense_product_shape(a_shape, b_shape, what):
    """The shape of a @ b for row-major dense operands of one rank >= 2 and the same leading
    (batch) dimensions, no broadcasting (the JAX FFI handler's contract), or ValueError
    naming `what`. Every size must fit the C ABI's int."""
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    for shape, name in ((a_shape, "a"), (b_shape, "b")):
        if len(shape) < 2:
            raise ValueError(f"{what}: {name} has shape {shape}: 2-D (a matrix) or more "
                             "(batches of matrices) only")
    if len(a_shape) != len(b_shape) or a_shape[:-2] != b_shape[:-2]:
        raise ValueError(f"{what}: the batch dimensions of a {a_shape} and b {b_shape} differ "
                         "(no broadcasting: give both the same leading dimensions)")
    if a_shape[-1] != b_shape[-2]:
        raise ValueError(f"{what}: shapes {a_shape} and {b_shape} cannot be multiplied (a has "
                         f"{a_shape[-1]} columns, b has {b_shape[-2]} rows)")
    batch = 1
    for d in a_shape[:-2]:
        batch *= d
    for size, label in ((a_shape[-2], "M"), (b_shape[-1], "N"), (a_shape[-1], "K"),
                        (batch, "the batch")):
        if size > INT_MAX:
            raise ValueError(f"{what}: {label} = {size} does not fit the C ABI's int")
    return a_shape[:-1] + b_shape[-1:]


def contiguous_strides(shape):
    """C-contiguous element strides of `shape`."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def parse_cuda_array_interface(cai, name="the array"):
    """Checks a __cuda_array_interface__ dict and returns an ArrayInterface. TypeError when it
    is not a dict or not float32; ValueError for a missing or malformed field, a mask, byte
    strides that are not whole float32 elements, a null pointer with elements, or stream 0
    (which version 3 forbids)."""
    if not isinstance(cai, dict):
        raise TypeError(f"{name}: __cuda_array_interface__ is a {type(cai).__name__}, not a dict")
    for field in ("shape", "typestr", "data", "version"):
        if field not in cai:
            raise ValueError(f"{name}: __cuda_array_interface__ has no '{field}'")
    version = cai["version"]
    if not isinstance(version, int) or not 0 <= version <= 3:
        raise ValueError(f"{name}: __cuda_array_interface__ version {version!r} is not 0 to 3")
    typestr = cai["typestr"]
    if typestr not in _FLOAT32:
        raise TypeError(f"{name} has typestr {typestr!r}: the library multiplies float32 "
                        "('<f4') arrays")
    shape = cai["shape"]
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(e, int) and e >= 0 for e in shape):
        raise ValueError(f"{name}: shape {shape!r} is not a tuple of sizes")
    shape = tuple(shape)
    data = cai["data"]
    if not isinstance(data, (tuple, list)) or len(data) != 2 or not isinstance(data[0], int):
        raise ValueError(f"{name}: data {data!r} is not (pointer, readonly)")
    ptr, readonly = data[0], bool(data[1])
    size = 1
    for e in shape:
        size *= e
    if ptr == 0 and size > 0:
        raise ValueError(f"{name}: data pointer is null")
    if cai.get("mask") is not None:
        raise ValueError(f"{name}: masked arrays are not supported")
    strides = cai.get("strides")
    if strides is None:
        strides = contiguous_strides(shape)
    else:
        if not isinstance(strides, (tuple, list)) or len(strides) != len(shape) or not all(
                isinstance(s, int) for s in strides):
            raise ValueError(f"{name}: strides {strides!r} do not match shape {shape!r}")
        if any(s % 4 for s in strides):
            raise ValueError(f"{name}: byte strides {tuple(strides)!r} are not whole float32 "
                             "elements")
        strides = tuple(s // 4 for s in strides)
    stream = cai.get("stream") if version >= 3 else None
    if stream is not None:
        if not isinstance(stream, int) or stream == 0:
            raise ValueError(f"{name}: stream {stream!r} is not a stream handle (version 3 "
                             "forbids 0: 1 is the legacy default stream)")
    return ArrayInterface(ptr, shape, strides, readonly, stream)
