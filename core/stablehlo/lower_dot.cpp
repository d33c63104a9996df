// When the whole working set (lhs panels, weight blocks, result panels) does not fit the machine's VMEM,
// the op runs as tiles that do: one batch at a time, then N blocks and rows of M halved (the larger of the
// weights and the panels first) until a tile fits; each tile is the kernel above on its part of the
// operands, writing its part of the result. K is never split, so every tile sums all of K in VMEM.

#include "stablehlo/lower_dot_tile.h"

#include <cmath>

namespace xps::shlo::lower {

using namespace dot;

namespace {

std::vector<std::int64_t> intList(const Operation& op, std::string_view name)
{
    const auto* a = op.attributes.find(name);
    if (!a)
        return {};
    auto v = a->integers();
    if (!v)
        lowerFail("attribute '" + std::string(name) + "' must be a list of integers");
    return *v;
}

DotDims dimsOf(const std::vector<std::int64_t>& batch, const std::vector<std::int64_t>& contracting, int rank)
{
    DotDims d{batch, contracting, {}};
    for (std::int64_t i = 0; i < rank; ++i)
        if (std::find(batch.begin(), batch.end(), i) == batch.end() &&
            std::find(contracting.begin(), contracting.end(), i) == contracting.end())
            d.free.push_back(i);
    return d;
}

std::int64_t product(const std::vector<std::int64_t>& dims, const TensorType& t)
{
    std::int64_t p = 1;
    for (const auto d : dims)
        p *= t.shape[static_cast<std::size_t>(d)];
    return p;
}

// VMEM bytes of a tile: lhs panels, weight blocks and result panels (each a multiple of 4 KiB).
std::uint64_t tileBytes(const DotShape& s, std::int64_t bc, std::int64_t mc, std::int64_t nbc)
{
    const auto rows = static_cast<std::uint64_t>(s.rowsPadded(mc));
    const auto b = static_cast<std::uint64_t>(bc), kb = static_cast<std::uint64_t>(s.KB),
               nb = static_cast<std::uint64_t>(nbc);
    return b * kb * rows * static_cast<std::uint64_t>(s.lhsRowBytes()) +
           b * kb * nb * static_cast<std::uint64_t>(s.weightBlockBytes()) + b * nb * rows * 512;
}

// The tile size: the whole op when it fits, else one batch, N blocks and rows of M halved until it does.
// The tiles are visited by forEachTile, largest first (the buffers are sized by the first), never held in
// a list: a hostile op of millions of batches must fail on instruction memory, not allocate first.
DotTile planTile(const DotShape& s, std::uint64_t budget)
{
    if (tileBytes(s, s.B, s.M, s.NB) <= budget) {
        // A tall op (2048 rows or more) whose weights are small beside its rows still runs as four tiles of
        // rows, two sets of buffers in turn: the next tile's rows load and the last one's results leave
        // while the MXUs work, where the whole op at once waits for its first K block of every row before
        // the first matmul and writes all its results after the last (4096 x 512 x 256 bf16: 4 MiB of
        // results leaving at the end). Each tile reads the weights again, so only when three more reads of
        // them cost at most a quarter of the rows' and results' bytes.
        const std::int64_t rows = s.rowsPadded((s.M + 3) / 4);
        const auto weights = static_cast<double>(s.KB * s.NB * s.weightBlockBytes()),
                   perRow = static_cast<double>(s.KB * s.lhsRowBytes() + s.NB * 512);
        if (s.B == 1 && s.l.free.size() <= 1 && s.M >= 2048 &&
            12.0 * weights <= perRow * static_cast<double>(s.M) && 2 * tileBytes(s, 1, rows, s.NB) <= budget)
            return DotTile{0, 1, 0, rows, 0, s.NB};
        return DotTile{0, s.B, 0, s.M, 0, s.NB};
    }
    const bool rowsSplit = s.l.free.size() <= 1; // rows of one lhs dimension are one strided move
    std::int64_t mc = s.M, nbc = s.NB;
    const std::int64_t fewestRows = s.rowsPadded(1); // one lhs register: 8 rows, or 16 packed
    while (tileBytes(s, 1, mc, nbc) > budget) {
        const auto weights = s.KB * nbc * s.weightBlockBytes(),
                   panels = (s.KB * s.lhsRowBytes() + nbc * 512) * s.rowsPadded(mc);
        if (nbc > 1 && (weights >= panels || mc <= fewestRows || !rowsSplit))
            nbc = (nbc + 1) / 2;
        else if (rowsSplit && mc > fewestRows)
            mc = std::max(fewestRows, s.rowsPadded((mc + 1) / 2));
        else
            lowerFail("dot_general: even its smallest tile (" +
                      std::string(rowsSplit ? std::to_string(fewestRows) + " rows"
                                            : "all " + std::to_string(s.M) + " rows") +
                      ", one 128-wide N block, all of K = " + std::to_string(s.K) + ") needs " +
                      std::to_string(tileBytes(s, 1, mc, nbc)) + " bytes of VMEM; " + std::to_string(budget) +
                      " are free");
    }
    // Every tile loads its rows of the lhs and its N blocks' weights, so the lhs is read once per group of
    // N blocks and the weights once per tile of rows. Halving by size alone can cut M into many tiles
    // while the weights are far larger than the lhs (a 2048 x 2048 x 32768 vocabulary projection: 8 tiles
    // of rows, 1 GiB of bf16 weight traffic): when another tile that fits at most halves those elements
    // read, take the one that reads fewest (of as few tiles as can be).
    if (rowsSplit) {
        const auto traffic = [&](std::int64_t rows, std::int64_t blocks) {
            const double rowTiles = std::ceil(static_cast<double>(s.M) / static_cast<double>(rows)),
                         groups = std::ceil(static_cast<double>(s.NB) / static_cast<double>(blocks));
            return rowTiles * static_cast<double>(s.K) * static_cast<double>(s.N) +
                   groups * static_cast<double>(s.M) * static_cast<double>(s.K);
        };
        const double halved = traffic(mc, nbc);
        double best = halved / 2;
        for (std::int64_t rows = s.M;; rows = std::max(fewestRows, s.rowsPadded((rows + 1) / 2))) {
            for (std::int64_t blocks = s.NB; blocks >= 1; blocks = blocks == 1 ? 0 : (blocks + 1) / 2)
                if (tileBytes(s, 1, rows, blocks) <= budget && traffic(rows, blocks) <= best) {
                    best = traffic(rows, blocks);
                    mc = rows;
                    nbc = blocks;
                    break; // the largest group of N blocks for these rows
                }
            if (rows <= fewestRows)
                break;
        }
    }
    return DotTile{0, 1, 0, mc, 0, nbc};
}

// Whether batch b of a tensor starts at b times its innermost batch dimension's stride: the batch
// dimensions nest, each the next one's extent times its stride (one batch dimension always does).
bool batchesNest(const std::vector<std::int64_t>& dims, const TensorType& t,
                 const std::vector<std::int64_t>& strides)
{
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
        const auto d = static_cast<std::size_t>(dims[i]), next = static_cast<std::size_t>(dims[i + 1]);
        if (strides[d] != t.shape[next] * strides[next])
            return false;
    }
    return true;
}

// The matmul; with `bias` a vector to add along the rows of the result, added in the tiles when the op is
// one tile (true), else left to the caller (false).
bool lowerDotTiles(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                   const TensorRef& out, const TensorRef* bias, const TensorRef* residual,
                   bool& residualAdded)
{
    const auto& lhs = in[0];
    const auto& rhs = in[1];
    // f16 and bf16 arrive in VMEM packed when the MXU takes them, else widened to f32 (their values
    // exactly): either way the MXU multiplies the same values and sums in f32.
    if (!isFloat(lhs.type.element) || !isFloat(rhs.type.element) || !isFloat(out.type.element))
        lowerFail("dot_general on the MXU takes floating-point operands in this lowering (i32 comes next)");
    DotShape s;
    if (op.kind == OpKind::Dot) {
        s.l = dimsOf({}, {lhs.type.rank() - 1}, lhs.type.rank());
        s.r = dimsOf({}, {0}, rhs.type.rank());
    } else {
        s.l = dimsOf(intList(op, "lhs_batching_dimensions"), intList(op, "lhs_contracting_dimensions"),
                     lhs.type.rank());
        s.r = dimsOf(intList(op, "rhs_batching_dimensions"), intList(op, "rhs_contracting_dimensions"),
                     rhs.type.rank());
    }
    s.B = product(s.l.batch, lhs.type);
    s.M = product(s.l.free, lhs.type);
    s.K = product(s.l.contracting, lhs.type);
    s.N = product(s.r.free, rhs.type);
    if ((s.K > 128 && s.l.contracting.size() != 1) || (s.N > 128 && s.r.free.size() != 1))
        lowerFail("dot_general with several contracting (or rhs free) dimensions over 128 elements has no "
                  "lowering yet");
    s.KB = std::max<std::int64_t>((s.K + 127) / 128, 1);
    s.NB = std::max<std::int64_t>((s.N + 127) / 128, 1);
    s.ls = byteStrides(lhs.type.shape, lhs.elementBytes);
    s.rs = byteStrides(rhs.type.shape, rhs.elementBytes);
    // A packed operand the MXU takes stays packed (16 rows a register); every other one is widened on the
    // way in. Packed lhs rows make two results a matmul, the second a stream occupancy after the first:
    // when that second result comes later than a full FIFO's worth of streaming (the default machine's
    // 136 + 8 cycles against 16 x 8), each pop waits 8 cycles longer than with f32 rows, which costs an
    // MXU-bound matmul more than the halved loads and matmul issues save (256 x 512 x 640 bf16: 7,319
    // cycles packed, 7,233 widened), so the lhs is then widened.
    const isa::MachineConfig& m = w.machine();
    const auto formatOf = [&](const TensorRef& t) {
        if (!t.packed())
            return isa::kMxuF32;
        return t.type.element == ElementType::BF16 ? (m.mxuBf16 != 0 ? isa::kMxuBf16 : isa::kMxuF32)
                                                   : (m.mxuF16 != 0 ? isa::kMxuF16 : isa::kMxuF32);
    };
    // Rows taking turns on R MXUs (few N blocks: emitTile) hold R FIFOs' worth in flight. Packed rows hold
    // two tiles a register, so a steady loop's registers cover fewer MXUs (mxuLayout) and at most 4 lanes:
    // when packing would leave MXUs idle that widened rows keep busy, the lhs is widened.
    const std::int64_t tiles8 = s.rowsPadded(s.M) / 8;
    const int weightPushes = formatOf(rhs) != isa::kMxuF32 ? 8 : 16;
    const double loadBytes = static_cast<double>(s.B) * static_cast<double>(s.K) *
                             static_cast<double>(s.M * lhs.elementBytes + s.N * rhs.elementBytes);
    const MxuLayout packedLayout = mxuLayout(m, s.NB, s.KB, 2, tiles8 / 2, weightPushes, loadBytes),
                    widenedLayout = mxuLayout(m, s.NB, s.KB, 1, tiles8, weightPushes, loadBytes);
    const std::int64_t turns = packedLayout.turns;
    const bool pairsKeepUp = m.mxuResultFifoDepth >= 2 &&
                             m.latMxuMatmul + m.occMxuMatmul <=
                                 std::min<std::int64_t>(m.mxuResultFifoDepth, 16) * m.occMxuMatmul * turns &&
                             packedLayout.mxus() >= widenedLayout.mxus() && packedLayout.lanes <= 4;
    s.lhsFormat = pairsKeepUp ? formatOf(lhs) : isa::kMxuF32;
    s.rhsFormat = formatOf(rhs);
    s.transposedRhs = s.r.contracting.size() == 1 && s.r.free.size() == 1 &&
                      s.rs[static_cast<std::size_t>(s.r.contracting.front())] == rhs.elementBytes && s.K > 1;
    // Every 8 rows of M meet every 128 x 128 weight block in one mxu.mm bundle: a program of more than
    // instruction memory is refused before any of it is written.
    // In loop mode each K block written has at most about 48 tiles' code, and a (batch, N block) whose K
    // blocks loop (five or more, with 16 tiles or more: emitTile) writes at most eleven of them (the first
    // two, the last, and a loop per input stream).
    const std::int64_t tiles = (s.M + 7) / 8;
    const double tilesWritten =
        w.loops() ? std::min<double>(static_cast<double>(tiles), 48.0) : static_cast<double>(tiles);
    const double blocksWritten = w.loops() && s.KB >= 5 && tiles >= 16
                                     ? std::min(11.0, static_cast<double>(s.KB))
                                     : static_cast<double>(s.KB);
    // Batches that loop (one batch's tile fits VMEM, checked below) and groups of N blocks that loop are
    // written about once; count them in full here only when unrolled.
    const double matmuls = (w.loops() ? 2.0 : static_cast<double>(s.B) * static_cast<double>(s.NB)) *
                           blocksWritten * tilesWritten;
    if (matmuls > static_cast<double>(w.machine().imemBundles))
        instructionMemoryFail("dot_general needs " + std::to_string(static_cast<std::uint64_t>(matmuls)) +
                              " mxu.mm bundles; the machine's instruction memory holds " +
                              std::to_string(w.machine().imemBundles) +
                              (w.loops() ? " (with loops)" : " (code is unrolled)"));
    const std::uint64_t budget = w.vmemAvailable() / 4096 * 4096;
    DotTile first = planTile(s, budget);
    // In loop mode, batches whose tile (all of M and N) fits VMEM are a loop over one batch's code, its
    // DMAs moving through the three operands by their batch strides.
    const TileSteps batchSteps{s.l.batch.empty() ? 0 : s.ls[static_cast<std::size_t>(s.l.batch.back())],
                               s.r.batch.empty() ? 0 : s.rs[static_cast<std::size_t>(s.r.batch.back())],
                               s.M * s.N * out.elementBytes};
    const bool loopBatches = w.loops() && s.B >= 2 && batchesNest(s.l.batch, lhs.type, s.ls) &&
                             batchesNest(s.r.batch, rhs.type, s.rs) && tileBytes(s, 1, s.M, s.NB) <= budget &&
                             ProgramWriter::loopFits(s.B, batchSteps.lhs) &&
                             ProgramWriter::loopFits(s.B, batchSteps.rhs) &&
                             ProgramWriter::loopFits(s.B, batchSteps.out);
    if (loopBatches)
        first = DotTile{0, 1, 0, s.M, 0, s.NB};
    const bool wholeOp = first.bc == s.B && first.mc == s.M && first.nbc == s.NB;
    // When two tiles fit VMEM (one batch of many: the tiles the planner cuts for VMEM fill more than half
    // of it), tiles are pipelined, unrolled or in loops: two sets of buffers, the next tile's operands
    // loading while the MXU works on this one's (each set's loads on one stream: a loop's waits take a
    // register each, 16 in all).
    const bool twoSets = !wholeOp && 2 * tileBytes(s, first.bc, first.mc, first.nbc) <= budget;
    const auto allocate = [&](int streams) {
        DotBuffers set;
        const auto rows = static_cast<std::uint64_t>(s.rowsPadded(first.mc));
        const auto bc = static_cast<std::uint64_t>(first.bc), kb = static_cast<std::uint64_t>(s.KB),
                   nbc = static_cast<std::uint64_t>(first.nbc);
        set.lhs =
            w.vmem(bc * kb * rows * static_cast<std::uint64_t>(s.lhsRowBytes()), "dot_general's lhs panels");
        set.rhs = w.vmem(bc * kb * nbc * static_cast<std::uint64_t>(s.weightBlockBytes()),
                         "dot_general's weight blocks");
        set.out = w.vmem(bc * nbc * rows * 512, "dot_general's result panels");
        for (int g = 0; g < streams; ++g)
            set.inputs.push_back(w.stream());
        set.back = w.stream();
        return set;
    };
    // Input streams: one for each set of a pipelined pair; else up to 8, by K block (a loop's waits take a
    // register each), or 16 for the whole op outside any loop, so that its first and last streams, which
    // the MXUs wait for and compute after, are small (emitTile).
    // (One flag is left for the results' write-back.)
    const std::int64_t streamsForWholeOp = std::clamp<std::int64_t>(
        std::min<std::int64_t>(w.streamsLeft() - 1, 16), 1, std::max<std::int64_t>(s.KB * s.NB, 1));
    DotBuffers buffers =
        allocate(twoSets                         ? 1
                 : wholeOp && w.loopDepth() == 0 ? static_cast<int>(streamsForWholeOp)
                                                 : static_cast<int>(std::min<std::int64_t>(s.KB, 8)));
    if (wholeOp) {
        // A tile's result registers step through N as the code is written: the bias (a copy in VMEM, every
        // value in f32) is read at each register's N block. (A loop over tiles moving through N would need
        // its address in a loop register too.)
        const bool biased = bias && !bias->isView() && !bias->splat && !bias->scalarConstant &&
                            s.r.free.size() == 1 && !out.type.shape.empty() && out.type.shape.back() == s.N;
        if (biased) {
            buffers.bias = w.vmem(static_cast<std::uint64_t>(s.NB * 512), "dot_general's bias");
            w.dma(buffers.back, isa::Space::Vmem, buffers.bias, isa::Space::Hbm, bias->address,
                  bias->hbmBytes(static_cast<std::uint64_t>(s.N * 4)), 1, 0, 0, {}, bias->widening());
            w.waitAll(buffers.back);
            buffers.biased = true;
        }
        // A residual after the bias: a copy of it in VMEM laid out as the result panels (the tile brings it
        // in), read and added register by register after the bias, in the unrolled code only.
        const auto residualBytes = static_cast<std::uint64_t>(s.B * s.NB * s.rowsPadded(s.M) * 512);
        residualAdded = biased && residual && !residual->isView() && !residual->splat &&
                        !residual->scalarConstant && !w.loops() && residualBytes <= w.vmemAvailable();
        if (residualAdded) {
            buffers.residual = w.vmem(residualBytes, "dot_general's residual");
            buffers.residualTensor = residual;
        }
        emitTile(w, in, out, s, first, buffers);
        return biased;
    }
    DotBuffers other = twoSets ? allocate(1) : DotBuffers{};
    const auto zero = [&](const DotBuffers& set, const DotTile& tile) { zeroKPadding(w, s, tile, set); };
    const auto times = [](TileSteps steps, std::int64_t n) {
        return TileSteps{steps.lhs * n, steps.rhs * n, steps.out * n};
    };
    // Tiles written one by one, pipelined when there are two sets: each tile's loads go into the set the
    // previous tile does not use, then the previous tile is multiplied (`pending`). A set's padding is
    // zeroed when a tile of another shape comes to it.
    DotBuffers* sets[2] = {&buffers, &other};
    struct Pending
    {
        DotTile tile;
        int set;
    };
    std::optional<Pending> pending;
    int nextSet = 0;
    std::optional<DotTile> zeroedFor[2];
    const auto sameShape = [&](const DotTile& a, const DotTile& b) {
        return a.mc == b.mc && a.nbc == b.nbc && (a.nb0 + a.nbc >= s.NB) == (b.nb0 + b.nbc >= s.NB);
    };
    const auto flush = [&] {
        if (!pending)
            return;
        DotBuffers& set = *sets[pending->set];
        w.waitAll(set.back);
        emitTile(w, in, out, s, pending->tile, set, {}, false, TilePhase::Compute);
        pending.reset();
    };
    const auto emitInTurn = [&](const DotTile& tile) {
        if (!twoSets) {
            emitTile(w, in, out, s, tile, buffers);
            return;
        }
        const bool zeroed = zeroedFor[nextSet] && sameShape(*zeroedFor[nextSet], tile);
        emitTile(w, in, out, s, tile, *sets[nextSet], {}, !zeroed, TilePhase::Load);
        zeroedFor[nextSet] = tile;
        flush();
        pending = Pending{tile, nextSet};
        nextSet ^= 1;
    };
    // Before a loop over tiles: the tile in flight multiplied, the sets' padding unknown after it.
    const auto beforeLoop = [&] {
        flush();
        zeroedFor[0].reset();
        zeroedFor[1].reset();
    };
    // Pipelined: tile 0's loads before the loop; each iteration loads tile 2i + 1 into the other set,
    // multiplies tile 2i, loads tile 2i + 2 into the first set and multiplies tile 2i + 1 (each set's
    // result panels free once its previous write-back has left); the one or two tiles left after it.
    const auto loopFits = [](std::int64_t iterations, TileSteps steps) {
        return iterations >= 1 && ProgramWriter::loopFits(iterations, steps.lhs) &&
               ProgramWriter::loopFits(iterations, steps.rhs) &&
               ProgramWriter::loopFits(iterations, steps.out);
    };
    const auto pipelineTiles = [&](std::int64_t iterations, TileSteps steps, const DotTile& tile) {
        const std::int64_t pairs = (iterations - 1) / 2;
        const TileSteps pair = times(steps, 2);
        if (!loopFits(pairs, pair))
            return false;
        beforeLoop();
        zero(buffers, tile);
        zero(other, tile);
        emitTile(w, in, out, s, tile, buffers, {}, false, TilePhase::Load);
        w.beginLoop(pairs, pair.lhs, pair.out, {}, pair.rhs);
        const TileBases bases{pair.lhs != 0 ? w.offset() : nullptr, pair.rhs != 0 ? w.offset3() : nullptr,
                              w.offset2()};
        emitTile(w, in, out, s, tile, other, bases, false, TilePhase::Load, steps);
        w.waitAll(buffers.back);
        emitTile(w, in, out, s, tile, buffers, bases, false, TilePhase::Compute);
        emitTile(w, in, out, s, tile, buffers, bases, false, TilePhase::Load, pair);
        w.waitAll(other.back);
        emitTile(w, in, out, s, tile, other, bases, false, TilePhase::Compute, steps);
        w.endLoop();
        const TileSteps at = times(steps, 2 * pairs), next = times(steps, 2 * pairs + 1);
        const bool two = iterations - 2 * pairs == 2;
        if (two)
            emitTile(w, in, out, s, tile, other, {}, false, TilePhase::Load, next);
        w.waitAll(buffers.back);
        emitTile(w, in, out, s, tile, buffers, {}, false, TilePhase::Compute, at);
        if (two) {
            w.waitAll(other.back);
            emitTile(w, in, out, s, tile, other, {}, false, TilePhase::Compute, next);
        }
        w.waitAll(buffers.back);
        w.waitAll(other.back);
        return true;
    };
    // `iterations` tiles of one shape (`tile`, at the loop's first position) as a loop whose iterations move
    // the HBM addresses on by `steps`; false (nothing written, the tile in flight still in flight) when
    // there are too few or the offsets do not fit the loop's registers. The padding is zeroed once, before
    // it: each iteration's DMAs write the same bytes of the VMEM operands.
    const auto loopTiles = [&](std::int64_t iterations, TileSteps steps, const DotTile& tile) {
        if (twoSets && iterations >= 3 && pipelineTiles(iterations, steps, tile))
            return true;
        if (iterations < 2 || !loopFits(iterations, steps))
            return false;
        beforeLoop();
        zero(buffers, tile);
        // Iterations whose lhs rows do not move (groups of N blocks with all of M) share them: loaded once,
        // before the loop (the 2048 x 2048 x 32768 bf16 projection on tpu_v4.json read its 8 MiB lhs in each
        // of its 16 iterations).
        const bool sharedLhs = steps.lhs == 0;
        if (sharedLhs)
            emitTile(w, in, out, s, tile, buffers, {}, false, TilePhase::Load, {}, TileLoads::LhsOnly);
        w.beginLoop(iterations, steps.lhs, steps.out, {}, steps.rhs);
        const TileBases bases{steps.lhs != 0 ? w.offset() : nullptr, steps.rhs != 0 ? w.offset3() : nullptr,
                              w.offset2()};
        emitTile(w, in, out, s, tile, buffers, bases, false, TilePhase::LoadAndCompute, {},
                 sharedLhs ? TileLoads::RhsOnly : TileLoads::Both);
        w.endLoop();
        return true;
    };
    // In loop mode, when M is cut into tiles and there are more full groups of N blocks than tiles of rows,
    // the groups are the loop and a group's tiles of rows its body, one after another (each tile's loads
    // going into the set the one before it does not use, when there are two): the code then grows with the
    // tiles of rows, not with N. A vocabulary projection of 2048 x 2048 x 32768 is 64 groups of 8 tiles,
    // whose 64 loops over tiles did not fit instruction memory. Only when the tiles of rows are all whole:
    // a shorter last one would lay its panels over the others' padding, zeroed once before the loop.
    const auto loopGroupsOfRowTiles = [&](std::int64_t b, std::int64_t groups, TileSteps steps) {
        const std::int64_t rowTiles = s.M / first.mc;
        if (groups < 2 || groups <= rowTiles || s.M % first.mc != 0 || !loopFits(groups, steps))
            return false;
        beforeLoop();
        const DotTile shape{b, 1, 0, first.mc, 0, first.nbc};
        zero(buffers, shape);
        if (twoSets)
            zero(other, shape);
        w.beginLoop(groups, 0, steps.out, {}, steps.rhs);
        const TileBases bases{nullptr, w.offset3(), w.offset2()};
        std::optional<Pending> loaded; // a tile whose loads are written and whose matmuls are not
        int set = 0;
        for (std::int64_t t = 0; t < rowTiles; ++t) {
            const DotTile tile{b, 1, t * first.mc, first.mc, 0, first.nbc};
            if (!twoSets) {
                emitTile(w, in, out, s, tile, buffers, bases, false);
                continue;
            }
            emitTile(w, in, out, s, tile, *sets[set], bases, false, TilePhase::Load);
            if (loaded) {
                w.waitAll(sets[loaded->set]->back);
                emitTile(w, in, out, s, loaded->tile, *sets[loaded->set], bases, false, TilePhase::Compute);
            }
            loaded = Pending{tile, set};
            set ^= 1;
        }
        if (loaded) {
            w.waitAll(sets[loaded->set]->back);
            emitTile(w, in, out, s, loaded->tile, *sets[loaded->set], bases, false, TilePhase::Compute);
            w.waitAll(buffers.back);
            w.waitAll(other.back);
        }
        w.endLoop();
        return true;
    };
    if (loopBatches && loopTiles(s.B, batchSteps, first))
        return false;
    // The tiles, batch by batch and N blocks by N blocks. In loop mode, when a tile has all of M, the full
    // groups of N blocks are a loop (the weights' and the results' addresses move on, the lhs rows stay);
    // else the full tiles along M are (the lhs rows' and the results' move on, the weights stay, re-read
    // every tile), so the code does not grow with M, nor with N when M fits.
    for (std::int64_t b = 0; b < s.B; ++b) {
        std::int64_t nb0 = 0;
        if (w.loops() && first.mc == s.M && s.r.free.size() == 1) {
            const std::int64_t groups =
                s.N / 128 / first.nbc; // of full blocks only: the last may be narrower
            const auto d = static_cast<std::size_t>(s.r.free.front());
            const TileSteps steps{0, first.nbc * 128 * s.rs[d], first.nbc * 128 * out.elementBytes};
            if (loopTiles(groups, steps, DotTile{b, 1, 0, s.M, 0, first.nbc}))
                nb0 = groups * first.nbc;
        } else if (w.loops() && s.r.free.size() == 1) {
            const std::int64_t groups = s.N / 128 / first.nbc;
            const auto d = static_cast<std::size_t>(s.r.free.front());
            if (loopGroupsOfRowTiles(b, groups,
                                     {0, first.nbc * 128 * s.rs[d], first.nbc * 128 * out.elementBytes}))
                nb0 = groups * first.nbc;
        }
        for (; nb0 < s.NB; nb0 += first.nbc) {
            const std::int64_t blocks = std::min(first.nbc, s.NB - nb0);
            std::int64_t m0 = 0;
            const std::int64_t fullTiles = s.M / first.mc;
            if (w.loops() && first.mc < s.M) {
                const auto d =
                    static_cast<std::size_t>(s.l.free.front()); // rows are split: one free dimension
                const TileSteps steps{first.mc * s.ls[d], 0, first.mc * s.N * out.elementBytes};
                if (loopTiles(fullTiles, steps, DotTile{b, 1, 0, first.mc, nb0, blocks}))
                    m0 = fullTiles * first.mc;
            }
            for (; m0 < s.M; m0 += first.mc)
                emitInTurn(DotTile{b, 1, m0, std::min(first.mc, s.M - m0), nb0, blocks});
        }
    }
    flush();
    if (twoSets) {
        w.waitAll(buffers.back);
        w.waitAll(other.back);
    }
    return false;
}

} // namespace

void lowerDot(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in, const TensorRef& out,
              const DotBias* bias)
{
    bool residualAdded = false;
    const bool biased = lowerDotTiles(w, op, in, out, bias ? &bias->vector : nullptr,
                                      bias && bias->residual ? &*bias->residual : nullptr, residualAdded);
    if (!bias)
        return;
    // What the tiles did not add, added in place by element-wise passes (each tile is read before it is
    // written): the bias, then the residual.
    const auto addInPlace = [&](const Operation& add, const TensorRef& other, bool dotFirst) {
        TensorRef result = out;
        result.type = add.resultTypes.at(0);
        std::vector<TensorRef> operands = {result, other};
        if (!dotFirst)
            std::swap(operands[0], operands[1]);
        lowerElementwise(w, add, operands, result);
    };
    if (!biased)
        addInPlace(*bias->add, bias->broadcast, bias->dotFirst);
    if (bias->residual && !residualAdded)
        addInPlace(*bias->residualAdd, *bias->residual, bias->residualDotFirst);
}

} // namespace xps::shlo::lower
