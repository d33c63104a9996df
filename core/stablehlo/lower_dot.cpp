// dot_general on the MXU. The operands are viewed as lhs [B, M, K] and rhs [B, K, N] (batch, free and
// contracting dimensions in the op's order) and brought into VMEM in the MXU's shapes: the lhs as
// 128-lane panels per 128-wide K block, M rows each; the rhs row-major, K rows of the tile's N blocks side
// by side (so one DMA brings a K block's weights for every N block, a contiguous run when the tile spans
// all of N), each 128 x 128 weight block pushed 8 rows at a time with a strided load. For every batch
// and 128-wide N block, each K block's weights are pushed and committed, the lhs rows stream through in
// groups of up to the result FIFO's depth, and the products are popped and summed over K in a VMEM copy
// of the result, which leaves for HBM at the end. Padding lanes and rows are zero, so they add nothing.
//
// When the whole working set (lhs panels, weight blocks, result panels) does not fit the machine's VMEM,
// the op runs as tiles that do: one batch at a time, then N blocks and rows of M halved (the larger of the
// weights and the panels first) until a tile fits; each tile is the kernel above on its part of the
// operands, writing its part of the result. K is never split, so every tile sums all of K in VMEM.

#include <algorithm>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

struct DotDims
{
    std::vector<std::int64_t> batch, contracting, free;
};

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

// MoveDims of `dims` of `t` whose destination strides nest inside `outer` (the innermost dimension gets
// `inner`), e.g. rows of 512 B for the M dimensions.
void appendNested(std::vector<MoveDim>& out, const std::vector<std::int64_t>& dims, const TensorType& t,
                  const std::vector<std::int64_t>& srcStrides, std::int64_t inner)
{
    std::vector<MoveDim> m;
    std::int64_t stride = inner;
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        const auto d = static_cast<std::size_t>(*it);
        m.insert(m.begin(), MoveDim{t.shape[d], srcStrides[d], stride});
        stride *= t.shape[d];
    }
    out.insert(out.end(), m.begin(), m.end());
}

// The one dimension a 128-wide block of K or N is cut from; several are allowed only when the whole
// extent fits one block.
MoveDim blockOf(const std::vector<std::int64_t>& dims, const TensorType& t,
                const std::vector<std::int64_t>& strides, std::int64_t block, std::int64_t dstStride,
                std::int64_t& srcOffset, std::vector<MoveDim>& whole)
{
    if (dims.size() != 1) {
        appendNested(whole, dims, t, strides, dstStride);
        return {1, 0, 0};
    }
    const auto d = static_cast<std::size_t>(dims[0]);
    const auto size = std::min<std::int64_t>(128, t.shape[d] - block * 128);
    srcOffset += block * 128 * strides[d];
    return {size, strides[d], dstStride};
}

} // namespace

namespace {

std::int64_t rowsPadded(std::int64_t rows)
{
    return std::max<std::int64_t>((rows + 7) / 8 * 8, 8);
}

// The op's view as lhs [B, M, K] x rhs [B, K, N], and its operands' byte strides.
struct DotShape
{
    DotDims l, r;
    std::int64_t B = 1, M = 1, K = 1, N = 1, KB = 1, NB = 1;
    std::vector<std::int64_t> ls, rs;
};

// A part of the op that fits VMEM: batches [b0, b0 + bc) (all or one), rows [m0, m0 + mc) of M and N blocks
// [nb0, nb0 + nbc).
struct DotTile
{
    std::int64_t b0 = 0, bc = 1, m0 = 0, mc = 1, nb0 = 0, nbc = 1;
    bool allBatches(const DotShape& s) const { return b0 == 0 && bc == s.B; }
    bool allRows(const DotShape& s) const { return m0 == 0 && mc == s.M; }
};

// VMEM bytes of a tile: lhs panels, weight blocks and result panels (each a multiple of 4 KiB).
std::uint64_t tileBytes(const DotShape& s, std::int64_t bc, std::int64_t mc, std::int64_t nbc)
{
    const auto panel = static_cast<std::uint64_t>(rowsPadded(mc) * 512);
    const auto b = static_cast<std::uint64_t>(bc), kb = static_cast<std::uint64_t>(s.KB),
               nb = static_cast<std::uint64_t>(nbc);
    return b * kb * panel + b * kb * nb * 65536 + b * nb * panel;
}

// Where batch `b` (an index over the batch dimensions, row-major) starts in a tensor with these strides.
std::int64_t batchOffset(const std::vector<std::int64_t>& batchDims, const TensorType& t,
                         const std::vector<std::int64_t>& strides, std::int64_t b)
{
    std::int64_t offset = 0;
    for (auto it = batchDims.rbegin(); it != batchDims.rend(); ++it) {
        const auto d = static_cast<std::size_t>(*it);
        offset += (b % t.shape[d]) * strides[d];
        b /= t.shape[d];
    }
    return offset;
}

// The tile size: the whole op when it fits, else one batch, N blocks and rows of M halved until it does.
// The tiles are visited by forEachTile, largest first (the buffers are sized by the first), never held in
// a list: a hostile op of millions of batches must fail on instruction memory, not allocate first.
DotTile planTile(const DotShape& s, std::uint64_t budget)
{
    if (tileBytes(s, s.B, s.M, s.NB) <= budget)
        return DotTile{0, s.B, 0, s.M, 0, s.NB};
    const bool rowsSplit = s.l.free.size() <= 1; // rows of one lhs dimension are one strided move
    std::int64_t mc = s.M, nbc = s.NB;
    while (tileBytes(s, 1, mc, nbc) > budget) {
        const auto weights = s.KB * nbc * 65536, panels = (s.KB + nbc) * rowsPadded(mc) * 512;
        if (nbc > 1 && (weights >= panels || mc <= 8 || !rowsSplit))
            nbc = (nbc + 1) / 2;
        else if (rowsSplit && mc > 8)
            mc = std::max<std::int64_t>(8, rowsPadded((mc + 1) / 2));
        else
            lowerFail("dot_general: even its smallest tile (" +
                      std::string(rowsSplit ? "8 rows" : "all " + std::to_string(s.M) + " rows") +
                      ", one 128-wide N block, all of K = " + std::to_string(s.K) + ") needs " +
                      std::to_string(tileBytes(s, 1, mc, nbc)) + " bytes of VMEM; " + std::to_string(budget) +
                      " are free");
    }
    return DotTile{0, 1, 0, mc, 0, nbc};
}

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

struct DotBuffers
{
    std::uint64_t lhs = 0, rhs = 0, out = 0;
    std::vector<DmaStream> inputs; // up to 8 streams, by K block
    DmaStream back;                // results to HBM
};

// One tile. `zeroPadding`: the VMEM operands are zeroed first, so that lanes and rows past K, M and N
// are zero (a loop over tiles of one shape zeroes them once, before it: its DMAs write the same bytes of
// them every iteration).
void emitTile(ProgramWriter& w, const std::vector<TensorRef>& in, const TensorRef& out, const DotShape& s,
              const DotTile& tile, DotBuffers& buffers, TileBases hbm = {}, bool zeroPadding = true)
{
    const auto& lhs = in[0];
    const auto& rhs = in[1];
    const std::int64_t B = tile.bc, KB = s.KB, NB = tile.nbc, M = tile.mc, N = s.N;
    const std::int64_t Mpad = rowsPadded(M);
    const std::int64_t panelBytes = Mpad * 512;
    const std::uint64_t lhsV = buffers.lhs, rhsV = buffers.rhs, outV = buffers.out;
    // The weights in VMEM: per batch, KB * 128 rows of the tile's N blocks side by side.
    const std::int64_t weightRow = NB * 512;
    if (zeroPadding) {
        w.bundle("vbcast v15, 0");
        w.fill("v15", lhsV, outV - lhsV);
    }
    // The operands arrive by K block, in up to 8 streams of their own, so the MXU starts on the first block
    // while the others are still on their way.
    std::vector<DmaStream>& inputs = buffers.inputs;
    const auto groups = static_cast<std::int64_t>(inputs.size());
    const auto groupOf = [&](std::int64_t kb) { return static_cast<std::size_t>(kb * groups / KB); };
    std::vector<bool> arrived(static_cast<std::size_t>(groups), false);
    const auto needBlock = [&](std::int64_t kb) {
        if (!arrived[groupOf(kb)])
            w.waitAll(inputs[groupOf(kb)]);
        arrived[groupOf(kb)] = true;
    };
    const auto& ls = s.ls;
    const auto& rs = s.rs;
    const std::int64_t lhsBatch = tile.allBatches(s) ? 0 : batchOffset(s.l.batch, lhs.type, ls, tile.b0);
    const std::int64_t rhsBatch = tile.allBatches(s) ? 0 : batchOffset(s.r.batch, rhs.type, rs, tile.b0);
    for (std::int64_t kb = 0; kb < KB; ++kb) {
        DmaStream& in1 = inputs[groupOf(kb)];
        std::vector<MoveDim> m;
        std::int64_t offset = lhsBatch;
        if (tile.allBatches(s))
            appendNested(m, s.l.batch, lhs.type, ls, KB * panelBytes);
        if (tile.allRows(s)) {
            appendNested(m, s.l.free, lhs.type, ls, 512);
        } else { // one lhs free dimension (planTiles): rows [m0, m0 + mc) of it
            const auto d = static_cast<std::size_t>(s.l.free.front());
            m.push_back({M, ls[d], 512});
            offset += tile.m0 * ls[d];
        }
        const auto k = blockOf(s.l.contracting, lhs.type, ls, kb, 4, offset, m);
        m.push_back(k);
        w.move(in1, isa::Space::Vmem, lhsV + static_cast<std::uint64_t>(kb * panelBytes), isa::Space::Hbm,
               lhs.address + static_cast<std::uint64_t>(offset), m, lhs.widening(), 4,
               {.srcRegister = hbm.lhs});
        // K block kb's weights for all the tile's N blocks in one move (before, one per N block: a strided
        // DMA each, whose setup and completion dominated weight-bound matmuls; issue #21).
        std::vector<MoveDim> b;
        if (tile.allBatches(s))
            appendNested(b, s.r.batch, rhs.type, rs, KB * NB * 65536);
        std::int64_t rOffset = rhsBatch;
        const auto kr = blockOf(s.r.contracting, rhs.type, rs, kb, weightRow, rOffset, b);
        b.push_back(kr);
        if (s.r.free.size() == 1) {
            const auto d = static_cast<std::size_t>(s.r.free.front());
            rOffset += tile.nb0 * 128 * rs[d];
            b.push_back({std::min<std::int64_t>(NB * 128, N - tile.nb0 * 128), rs[d], 4});
        } else { // several free dimensions: N fits one block (lowerDot), so NB = 1
            const auto nr = blockOf(s.r.free, rhs.type, rs, 0, 4, rOffset, b);
            b.push_back(nr);
        }
        w.move(in1, isa::Space::Vmem, rhsV + static_cast<std::uint64_t>(kb * NB * 65536), isa::Space::Hbm,
               rhs.address + static_cast<std::uint64_t>(rOffset), b, rhs.widening(), 4,
               {.srcRegister = hbm.rhs});
    }
    // The MXU stream: every (batch, N block, K block, 8-row tile) in that order, software-pipelined so the
    // MXU never waits for the code around it. Tile j's result is popped (and summed into the VMEM
    // result) just before tile j + depth is multiplied: the result FIFO holds `depth` results, and with
    // its latency covered by `depth` matmuls in flight, a pop finds its result ready. The next block's
    // weights are staged, a row per tile, while the current block's tiles stream; the commit comes after
    // the block's last matmul. Registers rotate so neighbouring tiles do not wait on each other's.
    const std::int64_t tiles = Mpad / 8;
    const std::int64_t depth =
        std::max<std::int64_t>(std::min<std::int64_t>(w.machine().mxuResultFifoDepth, 16), 1);
    struct Job
    {
        std::int64_t b, nb, kb, t;
    };
    std::vector<Job> jobs;
    jobs.reserve(static_cast<std::size_t>(B * NB * KB * tiles));
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t nb = 0; nb < NB; ++nb)
            for (std::int64_t kb = 0; kb < KB; ++kb)
                for (std::int64_t t = 0; t < tiles; ++t)
                    jobs.push_back({b, nb, kb, t});
    // Where block (kb, nb) of batch b starts: its 8-row registers are weightRow * 8 bytes apart.
    const auto weights = [&](const Job& j) {
        return rhsV + static_cast<std::uint64_t>((j.b * KB + j.kb) * NB * 65536 + j.nb * 512);
    };
    // A VMEM address, or one relative to a loop's offset register (`base`).
    const auto at = [](std::uint64_t address, const std::string& base) {
        return base.empty() ? std::to_string(address) : base + " + " + std::to_string(address);
    };
    // In a loop's body: the registers the addresses that move are relative to (empty: they do not move).
    struct Bases
    {
        std::string lhs, result, weights; // the lhs tile, the result tile, the next block's weights
    };
    const auto resultAddress = [&](const Job& j) {
        return outV + static_cast<std::uint64_t>((j.b * NB + j.nb) * panelBytes + j.t * 4096);
    };
    const auto reg = [](std::initializer_list<int> pool, std::size_t i) {
        return "v" + std::to_string(*(pool.begin() + static_cast<std::ptrdiff_t>(i % pool.size())));
    };
    std::size_t pushes = 0;
    const auto pushRow = [&](std::uint64_t block, int row, const std::string& base) {
        const auto source = reg({8, 13, 14}, pushes++);
        const auto address = at(block + static_cast<std::uint64_t>(row * 8 * weightRow), base);
        w.bundle(weightRow == 512 ? "vld " + source + ", [" + address + "]"
                                  : "vld.s " + source + ", [" + address + "], " + std::to_string(weightRow));
        w.bundle("mxu.wpush " + source);
    };
    // Back to HBM by (batch, N block) as soon as its last K block is summed, while the MXU goes on: the
    // result is [batch..., lhs free..., rhs free...], row-major, so (b, m, n) is at ((b * M + m) * N + n)
    // * its element's bytes (narrowed on the way out when packed).
    DmaStream& back = buffers.back;
    const auto writeBack = [&](const Job& j) {
        const std::int64_t nb = tile.nb0 + j.nb, b = tile.b0 + j.b;
        const auto width = std::min<std::int64_t>(128, N - nb * 128);
        const std::int64_t e = out.elementBytes;
        w.move(back, isa::Space::Hbm,
               out.address + static_cast<std::uint64_t>(((b * s.M + tile.m0) * N + nb * 128) * e),
               isa::Space::Vmem, outV + static_cast<std::uint64_t>((j.b * NB + j.nb) * panelBytes),
               {{M, 512, N * e}, {width, 4, e}}, out.narrowing(), 4, {.dstRegister = hbm.out});
    };
    // The partial sum of tile `index` over the K blocks before its own (from `ahead` tiles further on).
    const auto loadPartial = [&](std::size_t index, const std::string& base, std::uint64_t ahead) {
        if (jobs[index].kb > 0)
            w.bundle("vld " + reg({24, 25, 26, 27, 28, 29, 30, 31}, index) + ", [" +
                     at(resultAddress(jobs[index]) + ahead * 4096, base) + "]");
    };
    // Tile `index`'s product popped and summed (its partial loaded here unless `preloaded`).
    const auto accumulate = [&](std::size_t index, const std::string& base, bool preloaded = false) {
        const Job& j = jobs[index];
        const auto sum = reg({16, 17, 18, 19, 20, 21, 22, 23}, index);
        const auto resultAt = at(resultAddress(j), base);
        w.bundle("mxu.pop " + sum);
        if (j.kb > 0) {
            const auto partial = reg({24, 25, 26, 27, 28, 29, 30, 31}, index);
            if (!preloaded)
                loadPartial(index, base, 0);
            w.bundle("vadd.f32 " + sum + ", " + partial + ", " + sum);
        }
        w.bundle("vst " + sum + ", [" + resultAt + "]");
        if (j.kb == KB - 1 && j.t == tiles - 1)
            writeBack(j);
    };
    needBlock(jobs.front().kb);
    for (int row = 0; row < 16; ++row)
        pushRow(weights(jobs.front()), row, {});
    int stagedRows = 16; // rows of the next block staged so far (16: the first block is complete)
    // Tile j's rows through the MXU: loaded (from `ahead` tiles further on), and multiplied.
    const auto lhsTile = [&](std::size_t i) {
        const Job& j = jobs[i];
        return lhsV + static_cast<std::uint64_t>((j.b * KB + j.kb) * panelBytes + j.t * 4096);
    };
    const auto loadRows = [&](std::size_t i, const std::string& base, std::uint64_t ahead) {
        w.bundle("vld " + reg({0, 1, 2, 3, 9, 10, 11, 12}, i) + ", [" + at(lhsTile(i) + ahead * 4096, base) +
                 "]");
    };
    const auto multiply = [&](std::size_t i) { w.bundle("mxu.mm " + reg({0, 1, 2, 3, 9, 10, 11, 12}, i)); };
    const auto issue = [&](std::size_t i, const std::string& base) {
        loadRows(i, base, 0);
        multiply(i);
    };
    // In loop mode a block's steady state is a counted loop of 8 tiles an iteration (the registers turn
    // once): from its 16th tile on, the next block's weights are staged and every pop sums a tile of the
    // same block, so tiles differ only in their addresses. And the middle K blocks of every (batch, N
    // block), from the third to the one before the last, are a loop around that one: their code differs
    // only in the lhs panel and the next block's weights (the first two and the last stay unrolled: the
    // first sums nothing, the last writes back), their operands all awaited before it.
    constexpr std::int64_t kSteadyFrom = 16, kUnroll = 8, kFirstLoopedBlock = 2;
    // Each iteration loads the next one's rows: the loop leaves at least kUnroll tiles after it to load.
    const std::int64_t steadyIterations = (tiles - kSteadyFrom - kUnroll) / kUnroll;
    const std::int64_t blockIterations = KB - 1 - kFirstLoopedBlock;
    const bool loopBlocks = w.loops() && w.loopDepth() + 2 <= ProgramWriter::kMaxLoopDepth &&
                            steadyIterations >= 2 && blockIterations >= 2 &&
                            ProgramWriter::loopFits(blockIterations, panelBytes) &&
                            ProgramWriter::loopFits(blockIterations, NB * 65536);
    // Writes job i (or, at a block's 16th tile, its steady loop) and returns the next job to write.
    const auto emitStep = [&](std::size_t i, const Bases& bases) -> std::size_t {
        const Job& j = jobs[i];
        if (w.loops() && w.loopDepth() < ProgramWriter::kMaxLoopDepth && j.t == kSteadyFrom &&
            steadyIterations >= 2) {
            // Software-pipelined: the first iteration's rows are loaded before the loop, and each iteration
            // loads the next one's after its matmuls, so no matmul waits for its load at the loop's head.
            // The lhs offset starts from the block loop's (when there is one); the results' does not move
            // with the block.
            const auto before = static_cast<std::size_t>(depth); // the tile a job's pop sums
            for (std::size_t u = 0; u < static_cast<std::size_t>(kUnroll); ++u) {
                loadRows(i + u, bases.lhs, 0);
                loadPartial(i + u - before, bases.result, 0);
            }
            w.beginLoop(steadyIterations, kUnroll * 4096, bases.lhs.empty() ? 0 : kUnroll * 4096, bases.lhs);
            const std::string lhsBase = w.offset(), resultBase = bases.lhs.empty() ? w.offset() : w.offset2();
            for (std::size_t u = 0; u < static_cast<std::size_t>(kUnroll); ++u) {
                accumulate(i + u - before, resultBase, true);
                multiply(i + u);
            }
            for (std::size_t u = 0; u < static_cast<std::size_t>(kUnroll); ++u) {
                loadRows(i + u, lhsBase, static_cast<std::uint64_t>(kUnroll));
                loadPartial(i + u - before, resultBase, static_cast<std::uint64_t>(kUnroll));
            }
            w.endLoop();
            return i + static_cast<std::size_t>(steadyIterations * kUnroll);
        }
        if (j.t == 0) { // a new block: its staged weights become active
            needBlock(j.kb);
            for (; stagedRows < 16; ++stagedRows)
                pushRow(weights(j), stagedRows, {});
            w.bundle("mxu.wcommit");
            stagedRows = 0;
        }
        if (i >= static_cast<std::size_t>(depth))
            accumulate(i - static_cast<std::size_t>(depth), bases.result);
        issue(i, bases.lhs);
        // Stage a row of the next block's weights while this block streams.
        const bool hasNext = i + static_cast<std::size_t>(tiles - j.t) < jobs.size();
        if (hasNext && stagedRows < 16) {
            needBlock(jobs[i + static_cast<std::size_t>(tiles - j.t)].kb);
            pushRow(weights(jobs[i + static_cast<std::size_t>(tiles - j.t)]), stagedRows++, bases.weights);
        }
        return i + 1;
    };
    for (std::size_t i = 0; i < jobs.size();) {
        const Job& j = jobs[i];
        if (loopBlocks && j.kb == kFirstLoopedBlock && j.t == 0) {
            for (std::int64_t kb = kFirstLoopedBlock; kb < KB; ++kb)
                needBlock(kb);
            w.beginLoop(blockIterations, panelBytes, NB * 65536);
            const Bases bases{w.offset(), {}, w.offset2()};
            for (std::size_t k = i; k < i + static_cast<std::size_t>(tiles);)
                k = emitStep(k, bases);
            w.endLoop();
            i += static_cast<std::size_t>(blockIterations * tiles);
            continue;
        }
        i = emitStep(i, {});
    }
    for (std::size_t i = jobs.size() > static_cast<std::size_t>(depth)
                             ? jobs.size() - static_cast<std::size_t>(depth)
                             : 0;
         i < jobs.size(); ++i)
        accumulate(i, {});
    // The result panels are the next tile's: its results must have left first.
    w.waitAll(back);
}

} // namespace

void lowerDot(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in, const TensorRef& out)
{
    const auto& lhs = in[0];
    const auto& rhs = in[1];
    // f16 and bf16 arrive in VMEM widened to f32 (their values exactly): the MXU multiplies them as f32.
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
    s.ls =
        byteStrides(lhs.type.shape, lhs.elementBytes); // packed f16/bf16 operands are widened on the way in
    s.rs = byteStrides(rhs.type.shape, rhs.elementBytes);
    // Every 8 rows of M meet every 128 x 128 weight block in one mxu.mm bundle: a program of more than
    // instruction memory is refused before any of it is written.
    // In loop mode each K block written has at most about 48 tiles' code, and a (batch, N block) whose K
    // blocks loop (five or more, with tiles enough for the tiles' loop: emitTile) writes four of them.
    const std::int64_t tiles = (s.M + 7) / 8;
    const double tilesWritten =
        w.loops() ? std::min<double>(static_cast<double>(tiles), 48.0) : static_cast<double>(tiles);
    const double blocksWritten = w.loops() && s.KB >= 5 && tiles >= 40 ? 4.0 : static_cast<double>(s.KB);
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
    DotBuffers buffers;
    const auto panel = static_cast<std::uint64_t>(rowsPadded(first.mc) * 512);
    const auto bc = static_cast<std::uint64_t>(first.bc), kb = static_cast<std::uint64_t>(s.KB),
               nbc = static_cast<std::uint64_t>(first.nbc);
    buffers.lhs = w.vmem(bc * kb * panel, "dot_general's lhs panels");
    buffers.rhs = w.vmem(bc * kb * nbc * 65536, "dot_general's weight blocks");
    buffers.out = w.vmem(bc * nbc * panel, "dot_general's result panels");
    for (std::int64_t g = 0; g < std::min<std::int64_t>(s.KB, 8); ++g)
        buffers.inputs.push_back(w.stream());
    buffers.back = w.stream();
    if (first.bc == s.B && first.mc == s.M && first.nbc == s.NB) {
        emitTile(w, in, out, s, first, buffers);
        return;
    }
    // `iterations` tiles of one shape (`tile`, at the loop's first position) as a loop whose iterations move
    // the HBM addresses on by `steps`; false when the offsets do not fit the loop's registers. The padding
    // is zeroed once, before it: each iteration's DMAs write the same bytes of the VMEM operands.
    const auto loopTiles = [&](std::int64_t iterations, TileSteps steps, const DotTile& tile) {
        if (iterations < 2 || !ProgramWriter::loopFits(iterations, steps.lhs) ||
            !ProgramWriter::loopFits(iterations, steps.rhs) ||
            !ProgramWriter::loopFits(iterations, steps.out))
            return false;
        w.bundle("vbcast v15, 0");
        w.fill("v15", buffers.lhs, buffers.out - buffers.lhs);
        w.beginLoop(iterations, steps.lhs, steps.out, {}, steps.rhs);
        const TileBases bases{steps.lhs != 0 ? w.offset() : nullptr, steps.rhs != 0 ? w.offset3() : nullptr,
                              w.offset2()};
        emitTile(w, in, out, s, tile, buffers, bases, false);
        w.endLoop();
        return true;
    };
    if (loopBatches && loopTiles(s.B, batchSteps, first))
        return;
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
                emitTile(w, in, out, s, DotTile{b, 1, m0, std::min(first.mc, s.M - m0), nb0, blocks},
                         buffers);
        }
    }
}

} // namespace xps::shlo::lower
