#pragma once
// How an element-wise kernel reads its inputs (internal to core/stablehlo): streamed from HBM tile by tile,
// or, for a broadcast held in registers (TensorRef::broadcastStrides), from a small copy of the broadcast's
// operand in VMEM, so that the broadcast is never written out, as in XLA's fusions.
//
// Two register layouts. The flat one (every kernel without such views): a register is 1024 consecutive
// elements of the result; a view whose pattern repeats within a register (a scalar, a bias row of 256) is
// loaded into a register once. The row one: the result is `rows` rows of `width` elements (its last
// dimension, a multiple of the 128 lanes), and a register is 8 consecutive rows x 128 columns (strided
// loads), as a TPU tiles an array (8, 128) on its last two dimensions. Then every view is one load per
// register: a view that varies along the row (a scale or bias of the last dimension, a mask) reads its row
// of 128 columns from its copy; a view constant along the row (a mean, a row maximum) reads one value per
// row, from a copy holding each value across a row of 128 lanes. The 8 rows of a register must step
// through the view's operand evenly (the row dimension a multiple of 8, or the view contiguous over all its
// rows). A view the kernel cannot read either way is written out first, as before fusion.

#include <cstdint>
#include <optional>
#include <vector>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

inline constexpr std::int64_t kRegisterElements = 1024; // 8 rows x 128 lanes

enum class Feed : std::uint8_t {
    Scalar,   // one value for every element: a register set once
    Pattern,  // flat layout: a pattern dividing a register, loaded once
    Streamed, // a tensor of the result's shape in HBM, tile by tile
    RowSlice, // row layout: 128 columns of the view's row, from a widened copy of its operand
    RowValue, // row layout: one value per row, from a copy with each value across a row of 128 lanes
};

struct RowLayout
{
    std::int64_t rows = 0, width = 0;
};

struct KernelFeeds
{
    std::optional<RowLayout> rows; // the row layout, or the flat one
    std::vector<Feed> feeds;       // per input
    std::vector<std::uint64_t>
        copies; // per input: the VMEM copy of a view's operand (Pattern, RowSlice, RowValue)
    std::vector<std::int64_t> steps; // per input: operand elements from one row of a register to the next
    std::vector<bool> whole;         // per input: its rows step evenly through the whole result (loopable)
};

// Decides how every input of a kernel computing `out` is read, writes out (to HBM scratch) each view that
// cannot be read in registers, replacing it in `inputs`, and brings every view's operand into VMEM. Run
// first in the kernel (it begins a kernel of its own when it writes a view out). `forceRows`: the row
// layout whatever the views (a reduction fusion's rows); a view it cannot read is written out.
KernelFeeds prepareFeeds(ProgramWriter& w, std::vector<TensorRef>& inputs, const TensorRef& out,
                         bool forceRows = false);

// The element of a view's operand at the start of row `row` of the row layout (its last dimension's index 0).
std::int64_t viewRowOffset(const TensorRef& view, std::int64_t row);

// The flat layout: a view repeating its operand along its leading dimensions whose size divides a register
// (element e is element e % period of the operand): that period; 0 otherwise.
std::int64_t flatPeriod(const TensorRef& view);

} // namespace xps::shlo::lower
