#pragma once
// dot_general's kernel for one tile (internal to core/stablehlo; lower_dot.cpp plans the tiles and the
// loops over them). The operands are viewed as lhs [B, M, K] and rhs [B, K, N]: batch, free and
// contracting dimensions in the op's order.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower::dot {

struct DotDims
{
    std::vector<std::int64_t> batch, contracting, free;
};

// The op's view as lhs [B, M, K] x rhs [B, K, N], and its operands' byte strides.
struct DotShape
{
    DotDims l, r;
    std::int64_t B = 1, M = 1, K = 1, N = 1, KB = 1, NB = 1;
    std::vector<std::int64_t> ls, rs;
    // The rhs's contracting dimension is its innermost (attention's scores against keys [N, K]): its rows
    // of N come in as they lie, K along the lanes, and are pushed transposed (mxu.wpush.t).
    bool transposedRhs = false;
    // Operands the MXU takes packed (a 2-byte type the machine's MXU multiplies: mxu_bf16, mxu_f16): they
    // stay 2 bytes in VMEM, a register holds 16 of their rows, and the MXU instructions say so (fmt=).
    // Else f16 and bf16 are widened to f32 on their way into VMEM, as every other kernel reads them.
    std::int64_t lhsFormat = isa::kMxuF32, rhsFormat = isa::kMxuF32;

    bool packedLhs() const { return lhsFormat != isa::kMxuF32; }
    bool packedRhs() const { return rhsFormat != isa::kMxuF32; }
    // Rows of M a tile's lhs panels and result panels hold: a whole number of lhs registers (8 or 16 rows)
    // and, where that adds at most a sixteenth, of 16, 8, 4 or 2 registers, so that the tiles of rows
    // divide evenly among MXUs taking turns (mxuLayout): 1,672 rows (209 registers) of one N block would
    // otherwise run on one MXU. The padding rows are computed and never written back.
    std::int64_t rowsPadded(std::int64_t rows) const
    {
        const std::int64_t unit = packedLhs() ? 16 : 8;
        const std::int64_t whole = std::max<std::int64_t>((rows + unit - 1) / unit * unit, unit);
        for (std::int64_t group = 16 * unit; group > unit; group /= 2)
            if (const std::int64_t padded = (whole + group - 1) / group * group;
                (padded - whole) * 16 <= whole)
                return padded;
        return whole;
    }
    // Bytes of one 128-wide row of K in an lhs panel, and of one row of a 128 x 128 weight block.
    std::int64_t lhsRowBytes() const { return packedLhs() ? 256 : 512; }
    std::int64_t weightRowBytes() const { return packedRhs() ? 256 : 512; }
    std::int64_t weightBlockBytes() const { return 128 * weightRowBytes(); }
};

// A part of the op that fits VMEM: batches [b0, b0 + bc) (all or one), rows [m0, m0 + mc) of M and N blocks
// [nb0, nb0 + nbc).
struct DotTile
{
    std::int64_t b0 = 0, bc = 1, m0 = 0, mc = 1, nb0 = 0, nbc = 1;
    bool allBatches(const DotShape& s) const { return b0 == 0 && bc == s.B; }
    bool allRows(const DotShape& s) const { return m0 == 0 && mc == s.M; }
};

// Registers a tile's HBM addresses are relative to when a loop runs it over batches, groups of N blocks or
// rows of M: the lhs rows' and the weights' sources and the results' destination (null: absolute).
struct TileBases
{
    const char* lhs = nullptr;
    const char* rhs = nullptr;
    const char* out = nullptr;
};

// What one iteration of a loop over tiles moves each operand's HBM address on by (bytes).
struct TileSteps
{
    std::int64_t lhs = 0, rhs = 0, out = 0;
};

struct DotBuffers
{
    std::uint64_t lhs = 0, rhs = 0, out = 0; // VMEM: lhs panels, weight blocks, result panels
    std::vector<DmaStream> inputs;           // up to 8 streams, by K block
    DmaStream back;                          // results to HBM
    // A bias to add along the rows (output fusion, lowerDot): N values in f32 from `bias` in VMEM, added to
    // the sums of the last K block before they are stored.
    bool biased = false;
    std::uint64_t bias = 0;
    // A residual to add after the bias: `residualTensor` in HBM, brought into `residual` in VMEM (laid out as
    // the result panels) when the tile starts.
    std::uint64_t residual = 0;
    const TensorRef* residualTensor = nullptr;
};

// What of a tile to write: all of it, or (a loop that loads one tile while the MXU works on another) only
// its loads or only its matmuls and write-back.
enum class TilePhase : std::uint8_t { LoadAndCompute, Load, Compute };

// Which operands a tile's loads bring: both, or only one (a loop whose iterations share the lhs rows loads
// them once, before it, and only the weights in each iteration).
enum class TileLoads : std::uint8_t { Both, LhsOnly, RhsOnly };

// How a tile's matmuls spread over the machine's MXUs (at most 8): `lanes` MXU groups each take an N block
// of a group of N blocks; within a lane `kSplit` MXUs each take one of consecutive K blocks, their products
// of the same rows summed in registers before the partial sum in VMEM is read and written once for all
// of them; and `turns` MXUs (a power of two), each holding the same weights, take the tiles of rows in
// turn (tile t on MXU t mod turns). With few N blocks the rows keep the other MXUs busy: a 4-block matmul
// on 8 MXUs runs 4 lanes of 2 turns. `pair`: 2 when an lhs register holds two tiles (packed rows); a
// steady loop holds lanes x kSplit x turns x pair tiles in registers, at most 8.
struct MxuLayout
{
    std::int64_t lanes = 1, turns = 1, kSplit = 1;
    std::int64_t mxus() const { return lanes * kSplit * turns; }
};
// The layout of fewest estimated cycles (the busiest of the MXUs and the bundle slots feeding them, over
// every step of the tile, or the operands' moves when they take longer), among lanes 1..min(nBlocks, MXUs)
// and K splits of 1, 2 or 4. loadBytes: the tile's operands in HBM.
MxuLayout mxuLayout(const isa::MachineConfig& machine, std::int64_t nBlocks, std::int64_t kBlocks,
                    std::int64_t pair, std::int64_t matmulsPerBlock, int pushesPerBlock, double loadBytes);

// Where each of `streams` input streams starts among a tile's `moves` moves (streams + 1 values, the last
// `moves`): the first and the last hold about firstMoves, the shares growing by a constant factor to the
// middle one and falling after it, every one at least one move (when there are as many).
std::vector<std::int64_t> streamStarts(std::int64_t moves, std::int64_t streams, std::int64_t firstMoves);

// Zeroes the VMEM a tile of this shape reads past K (the padding lanes and rows of the last K block), as
// the tile's moves leave it; nothing when K is whole blocks.
void zeroKPadding(ProgramWriter& w, const DotShape& s, const DotTile& tile, const DotBuffers& buffers);

// One tile. `hbm`: registers its HBM addresses are relative to (a loop over tiles); `shift`: bytes added
// to them (a pipelined loop's next tile). `zeroPadding`: the VMEM operands are zeroed first, so that lanes
// and rows past K, M and N are zero (a loop over tiles of one shape zeroes them once, before it: its DMAs
// write the same bytes of them every iteration). LoadAndCompute waits for the results' write-back at the
// end; Compute leaves that wait to the caller.
void emitTile(ProgramWriter& w, const std::vector<TensorRef>& in, const TensorRef& out, const DotShape& s,
              const DotTile& tile, DotBuffers& buffers, TileBases hbm = {}, bool zeroPadding = true,
              TilePhase phase = TilePhase::LoadAndCompute, TileSteps shift = {},
              TileLoads loads = TileLoads::Both);

// lower_dot_moves.cpp: the moves of a tile's operands.
// MoveDims of `dims` of `t` whose destination strides nest inside `outer` (the innermost dimension gets
// `inner`), e.g. rows of 512 B for the M dimensions.
void appendNested(std::vector<MoveDim>& out, const std::vector<std::int64_t>& dims, const TensorType& t,
                  const std::vector<std::int64_t>& srcStrides, std::int64_t inner);
// The one dimension a 128-wide block of K or N is cut from; several are allowed only when the whole
// extent fits one block.
MoveDim blockOf(const std::vector<std::int64_t>& dims, const TensorType& t,
                const std::vector<std::int64_t>& strides, std::int64_t block, std::int64_t dstStride,
                std::int64_t& srcOffset, std::vector<MoveDim>& whole);
// Where batch `b` (an index over the batch dimensions, row-major) starts in a tensor with these strides.
std::int64_t batchOffset(const std::vector<std::int64_t>& batchDims, const TensorType& t,
                         const std::vector<std::int64_t>& strides, std::int64_t b);

} // namespace xps::shlo::lower::dot
