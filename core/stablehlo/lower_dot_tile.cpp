// dot_general on the MXU. The operands are viewed as lhs [B, M, K] and rhs [B, K, N] (batch, free and
// contracting dimensions in the op's order) and brought into VMEM in the MXU's shapes: the lhs as
// 128-lane panels per 128-wide K block, M rows each; the rhs row-major, K rows of the tile's N blocks side
// by side (so one DMA brings a K block's weights for every N block, a contiguous run when the tile spans
// all of N), each 128 x 128 weight block pushed 8 rows at a time with a strided load. For every batch
// and 128-wide N block, each K block's weights are pushed and committed, the lhs rows stream through in
// groups of up to the result FIFO's depth, and the products are popped and summed over K in a VMEM copy
// of the result, which leaves for HBM at the end; with a K split (lower_dot_plan.cpp: mxuLayout) a lane's
// MXUs take consecutive K blocks and their products are summed in registers first. K's padding lanes and
// rows are zero, so they add nothing; M's and N's land in rows and columns never written back.
// A bf16/f16 operand the machine's MXU takes stays packed in VMEM (DotShape::lhsFormat, rhsFormat): 16
// rows a register, pushed and multiplied with fmt=, an lhs register's two results popped as two tiles.

#include "stablehlo/lower_dot_tile.h"

namespace xps::shlo::lower::dot {

namespace {

// Where an operand's moves read it: its copy in VMEM when a cross-program prefetch keeps one
// (lower_arguments.h), else HBM.
isa::Space spaceOf(const TensorRef& t)
{
    return t.vmemCopy ? isa::Space::Vmem : isa::Space::Hbm;
}

std::uint64_t addressOf(const TensorRef& t)
{
    return t.vmemCopy ? *t.vmemCopy : t.address;
}

} // namespace

void emitTile(ProgramWriter& w, const std::vector<TensorRef>& in, const TensorRef& out, const DotShape& s,
              const DotTile& tile, DotBuffers& buffers, TileBases hbm, bool zeroPadding, TilePhase phase,
              TileSteps shift, TileLoads loads)
{
    const auto& lhs = in[0];
    const auto& rhs = in[1];
    const std::int64_t B = tile.bc, KB = s.KB, NB = tile.nbc, M = tile.mc, N = s.N;
    const std::int64_t Mpad = s.rowsPadded(M);
    // An lhs panel (M rows of a 128-wide K block, 2 or 4 bytes an element) and a result panel (f32).
    const std::int64_t panelBytes = Mpad * s.lhsRowBytes();
    // The results in VMEM (f32) of a tile of few rows (16 tiles at most) and many N blocks (8 or more): per
    // batch, Mpad rows of the N blocks side by side, so that a group's lanes go back to HBM in one move (a
    // DMA each cost a 16 x 64 x 8192 matmul 64 setups, in turn on each engine); a lane's 8 rows are then a
    // strided register (vld.s, vst.s). Else a panel of Mpad rows per N block, whose 8-row registers are
    // plain (strided ones touch more of the pages the packer orders loads and stores by).
    const bool rowsSideBySide = NB >= 8 && Mpad <= 128;
    const std::int64_t resultRow = rowsSideBySide ? NB * 512 : 512, resultTile = 8 * resultRow;
    const std::int64_t resultLane = rowsSideBySide ? 512 : Mpad * 512;
    const std::string resultStride = rowsSideBySide ? ", " + std::to_string(resultRow) : std::string();
    const std::string resultLoad = rowsSideBySide ? "vld.s " : "vld ",
                      resultStore = rowsSideBySide ? "vst.s " : "vst ";
    const std::uint64_t lhsV = buffers.lhs, rhsV = buffers.rhs, outV = buffers.out;
    // The weights in VMEM: per batch, KB * 128 rows of the tile's N blocks side by side.
    const std::int64_t weightRow = NB * s.weightRowBytes(), weightBlock = s.weightBlockBytes();
    // Element bytes of each operand in VMEM, and the conversion on its way in (none when packed).
    const std::int64_t lhsElement = s.packedLhs() ? 2 : 4, rhsElement = s.packedRhs() ? 2 : 4;
    const Convert lhsConvert = s.packedLhs() ? Convert::None : lhs.widening(),
                  rhsConvert = s.packedRhs() ? Convert::None : rhs.widening();
    if (zeroPadding && phase != TilePhase::Compute)
        zeroKPadding(w, s, tile, buffers);
    const std::int64_t tiles = Mpad / 8;
    // Packed lhs rows: one register (and one mxu.mm) holds a pair of 8-row tiles, whose two results are
    // popped as the tiles' own; a pair is multiplied at its first tile.
    const std::int64_t pair = s.packedLhs() ? 2 : 1;
    const std::string lhsFormat = s.packedLhs() ? ", fmt=" + std::to_string(s.lhsFormat) : std::string();
    const std::string rhsFormat = s.packedRhs() ? ", fmt=" + std::to_string(s.rhsFormat) : std::string();
    // Weight pushes per block: 16 of 8 rows, or 8 of 16 packed rows.
    const int pushesPerBlock = s.packedRhs() ? 8 : 16;
    // Few N blocks for the MXUs (N-split would leave some of them idle: a tall matmul of N <= 128, say):
    // each lane's tiles of rows take turns on R MXUs (mxuLayout), so the MXUs still stream side by side.
    // R is a power of two dividing the tiles of a block, so a steady loop's tiles an iteration, and a
    // loop's blocks, land on the same MXUs every iteration.
    const std::int64_t matmulsPerBlock = tiles / pair;
    const double loadBytes = static_cast<double>(B) * static_cast<double>(s.K) *
                             (static_cast<double>(M * lhs.elementBytes) +
                              static_cast<double>(std::min(N - tile.nb0 * 128, NB * 128) * rhs.elementBytes));
    const MxuLayout layout = mxuLayout(w.machine(), NB, KB, pair, matmulsPerBlock, pushesPerBlock, loadBytes);
    const std::int64_t R = layout.turns;
    const std::int64_t P = layout.lanes;  // lanes of a group
    const std::int64_t G = layout.kSplit; // K blocks of a step, one per MXU of a lane
    const std::int64_t KQ = (KB + G - 1) / G;
    // Products in flight: each MXU's FIFO holds `depth`, so R MXUs taking turns hold R times as many (an
    // even number with packed rows: a matmul's two results go in together). Tile j is popped `lag` tiles
    // after it: at `depth`, or one fewer with packed rows, so that a pair's matmul finds room for both.
    const std::int64_t fifo =
        std::max<std::int64_t>(std::min<std::int64_t>(w.machine().mxuResultFifoDepth, 16), 1);
    const std::int64_t depth = (fifo - fifo % pair) * R;
    const std::int64_t lag = depth - (pair - 1);
    const std::int64_t NG = (NB + P - 1) / P;
    // The operands arrive by K block, in up to 8 streams of their own, so the MXU starts on the first block
    // while the others are still on their way. When the tile's N blocks make several groups (lanes), the
    // weights come by group and then K block, as the MXU takes them: a wide matmul of few rows (a decoder's
    // projection, weight-bound) multiplies its first group while the later groups' weights still stream
    // in, instead of waiting for every K block of all of them. The lhs panels come with the first group.
    // Only groups of several N blocks: with one MXU lane a group is one 128-wide block, and a DMA for each
    // of them and each K block cost more than the streaming saves (the 512 x 4096 x 4096 projection on one
    // MXU: 1,024 weight DMAs, 5% more cycles).
    std::vector<DmaStream>& inputs = buffers.inputs;
    const auto groups = static_cast<std::int64_t>(inputs.size());
    const std::int64_t weightGroups =
        P > 1 ? NG : 1; // the same in every call for a tile: its lhs streams too
    // Move q (below) brings K block q % KB of weight group q / KB; the moves are cut into the streams in
    // order (streamStarts): the first holds the first K group's moves only, and the shares grow to the
    // middle and fall again, so the MXUs start early and, while they work through a stream, the next one,
    // not much larger, arrives (equal streams after a small first one made the second wait for an eighth
    // of all the operands; streams growing to the end left the largest to compute after it arrived).
    const std::int64_t totalMoves = weightGroups * KB;
    const std::vector<std::int64_t> starts = streamStarts(totalMoves, groups, G);
    const auto streamStart = [&](std::int64_t stream) {
        return starts[static_cast<std::size_t>(std::clamp<std::int64_t>(stream, 0, groups))];
    };
    const auto streamOfMove = [&](std::int64_t q) {
        std::int64_t stream = groups - 1;
        while (stream > 0 && streamStart(stream) > q)
            --stream;
        return static_cast<std::size_t>(stream);
    };
    const auto streamOf = [&](std::int64_t g, std::int64_t kb) {
        return streamOfMove(std::min(g, weightGroups - 1) * KB + kb);
    };
    const auto& ls = s.ls;
    const auto& rs = s.rs;
    const std::int64_t lhsBatch = tile.allBatches(s) ? 0 : batchOffset(s.l.batch, lhs.type, ls, tile.b0);
    const std::int64_t rhsBatch = tile.allBatches(s) ? 0 : batchOffset(s.r.batch, rhs.type, rs, tile.b0);
    // Move q brings its K block's weights (and, in group 0, that block's lhs panel).
    const auto issueLoad = [&](std::int64_t q) {
        const std::int64_t wg = q / KB, kb = q % KB;
        DmaStream& in1 = inputs[streamOf(wg, kb)];
        if (loads != TileLoads::RhsOnly && wg == 0) {
            std::vector<MoveDim> m;
            std::int64_t offset = lhsBatch;
            if (tile.allBatches(s))
                appendNested(m, s.l.batch, lhs.type, ls, KB * panelBytes);
            if (tile.allRows(s)) {
                appendNested(m, s.l.free, lhs.type, ls, s.lhsRowBytes());
            } else { // one lhs free dimension (planTiles): rows [m0, m0 + mc) of it
                const auto d = static_cast<std::size_t>(s.l.free.front());
                m.push_back({M, ls[d], s.lhsRowBytes()});
                offset += tile.m0 * ls[d];
            }
            const auto k = blockOf(s.l.contracting, lhs.type, ls, kb, lhsElement, offset, m);
            m.push_back(k);
            w.move(in1, isa::Space::Vmem, lhsV + static_cast<std::uint64_t>(kb * panelBytes), spaceOf(lhs),
                   addressOf(lhs) + static_cast<std::uint64_t>(offset + shift.lhs), m, lhsConvert, lhsElement,
                   {.srcRegister = hbm.lhs});
        }
        if (loads == TileLoads::LhsOnly)
            return;
        // K block kb's weights for all the tile's N blocks in one move (before, one per N block: a strided
        // DMA each, whose setup and completion dominated weight-bound matmuls).
        std::vector<MoveDim> b;
        if (tile.allBatches(s))
            appendNested(b, s.r.batch, rhs.type, rs, KB * NB * weightBlock);
        std::int64_t rOffset = rhsBatch;
        // The N blocks this move brings: all the tile's, or group wg's.
        const std::int64_t groupBlocks = weightGroups > 1 ? P : NB, firstBlock = wg * groupBlocks,
                           blocks = std::min(groupBlocks, NB - firstBlock);
        const std::int64_t columns = std::min(blocks * 128, N - (tile.nb0 + firstBlock) * 128);
        std::uint64_t weightsAt = rhsV + static_cast<std::uint64_t>(kb * NB * weightBlock);
        if (s.transposedRhs) { // rows of N, K along the lanes: a contiguous run of K per row
            const auto dn = static_cast<std::size_t>(s.r.free.front()),
                       dk = static_cast<std::size_t>(s.r.contracting.front());
            rOffset += (tile.nb0 + firstBlock) * 128 * rs[dn] + kb * 128 * rs[dk];
            weightsAt += static_cast<std::uint64_t>(firstBlock * weightBlock);
            b.push_back({columns, rs[dn], s.weightRowBytes()});
            b.push_back({std::min<std::int64_t>(128, s.K - kb * 128), rs[dk], rhsElement});
        } else {
            const auto kr = blockOf(s.r.contracting, rhs.type, rs, kb, weightRow, rOffset, b);
            b.push_back(kr);
            if (s.r.free.size() == 1) {
                const auto d = static_cast<std::size_t>(s.r.free.front());
                rOffset += (tile.nb0 + firstBlock) * 128 * rs[d];
                weightsAt += static_cast<std::uint64_t>(firstBlock * s.weightRowBytes());
                b.push_back({columns, rs[d], rhsElement});
            } else { // several free dimensions: N fits one block (lowerDot), so NB = 1
                const auto nr = blockOf(s.r.free, rhs.type, rs, 0, rhsElement, rOffset, b);
                b.push_back(nr);
            }
        }
        w.move(in1, isa::Space::Vmem, weightsAt, spaceOf(rhs),
               addressOf(rhs) + static_cast<std::uint64_t>(rOffset + shift.rhs), b, rhsConvert, rhsElement,
               {.srcRegister = hbm.rhs});
    };
    // The moves are issued in order. A tile that loads and computes issues, before it awaits a stream,
    // the stream's moves and then as many more as the DMA queues hold beside them (the moves before the
    // stream have arrived, so no more are in flight): the engines stay busy, and the core never waits for
    // room in a queue while it has matmuls to issue (all 160 moves of a 768 x 4096 x 2048 bf16 matmul
    // issued first held its first matmul back 16,500 cycles). A tile loaded for later
    // (TilePhase::Load) issues them all.
    const std::int64_t moves = phase == TilePhase::Compute ? 0 : totalMoves;
    const std::int64_t engines = std::max<std::int64_t>(w.machine().dmaEngines, 1);
    const std::int64_t queueRoom = std::max<std::int64_t>(engines * w.machine().dmaQueueDepth - engines, 1);
    std::vector<std::int64_t> dmasBefore(static_cast<std::size_t>(moves + 1), 0); // descriptors before move q
    std::int64_t issued = 0;
    const auto issueThroughStream = [&](std::int64_t stream) {
        const std::int64_t first = streamStart(stream), last = streamStart(stream + 1) - 1;
        while (issued < moves) {
            const auto q = static_cast<std::size_t>(issued);
            if (phase == TilePhase::LoadAndCompute && issued > last) {
                const std::int64_t perMove =
                    q > 0 ? w.dmasWritten() - dmasBefore[q - 1] : 1; // as the last move
                if (w.dmasWritten() - dmasBefore[static_cast<std::size_t>(first)] + perMove > queueRoom)
                    break;
            }
            dmasBefore[q] = w.dmasWritten();
            issueLoad(issued++);
        }
    };
    issueThroughStream(0);
    if (phase == TilePhase::Load)
        return;
    std::vector<bool> arrived(static_cast<std::size_t>(groups), false);
    const auto needBlock = [&](std::int64_t g, std::int64_t kb) {
        const std::size_t stream = streamOf(g, kb);
        if (!arrived[stream]) {
            issueThroughStream(static_cast<std::int64_t>(stream));
            w.waitAll(inputs[stream]);
        }
        arrived[stream] = true;
    };
    // The MXU stream: every (batch, N block, K block, 8-row tile) in that order, software-pipelined so the
    // MXU never waits for the code around it. Tile j's result is popped (and summed into the VMEM
    // result) just before tile j + depth is multiplied: the result FIFO holds `depth` results, and with
    // its latency covered by `depth` matmuls in flight, a pop finds its result ready. The next block's
    // weights are staged, a row per tile, while the current block's tiles stream; the commit comes after
    // the block's last matmul. Registers rotate so neighbouring tiles do not wait on each other's.
    //
    // With several MXUs (mxu_count), each takes one of a group of N blocks: a tile's rows are loaded once
    // and multiplied on every MXU of the group, each MXU with its own weights, FIFO and results; a "job"
    // is then (batch, group of N blocks, K block, tile) and everything per N block is done per lane.
    // With a K split (G > 1) a job's K "block" is a group of G of them (kq), each on an MXU of its own.
    struct Job
    {
        std::int64_t b, g, kq, t;
    };
    const auto lanes = [&](const Job& j) { return std::min(P, NB - j.g * P); };
    const auto splits = [&](const Job& j) { return std::min(G, KB - j.kq * G); }; // K blocks of its group
    std::vector<Job> jobs;
    jobs.reserve(static_cast<std::size_t>(B * NG * KQ * tiles));
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t g = 0; g < NG; ++g)
            for (std::int64_t kq = 0; kq < KQ; ++kq)
                for (std::int64_t t = 0; t < tiles; ++t)
                    jobs.push_back({b, g, kq, t});
    // The operands of job j's K group awaited (each stream once).
    const auto needGroup = [&](const Job& j) {
        for (std::int64_t k = 0; k < splits(j); ++k)
            needBlock(j.g, j.kq * G + k);
    };
    // The mxu= operand of MXU m (MXU 0's is left out, as a one-MXU machine's code has none), and the MXU
    // job j's lane p and K block k of its group run on.
    const auto onMxu = [](std::int64_t m) { return m == 0 ? std::string() : ", mxu=" + std::to_string(m); };
    const auto mxuOf = [&](const Job& j, std::int64_t p, std::int64_t k) {
        return (p * G + k) * R + j.t / pair % R;
    };
    // Where block (kb, nb) of batch b starts (kb: block k of the job's K group, nb: lane p of its group of
    // N blocks): its 8-row registers are weightRow * 8 bytes apart (a transposed rhs: blocks of 128 rows
    // of N one after another, 8 rows a register).
    const auto weights = [&](const Job& j, std::int64_t p, std::int64_t k) {
        return rhsV + static_cast<std::uint64_t>((j.b * KB + j.kq * G + k) * NB * weightBlock +
                                                 (j.g * P + p) *
                                                     (s.transposedRhs ? weightBlock : s.weightRowBytes()));
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
    const auto resultAddress = [&](const Job& j, std::int64_t p) {
        return outV + static_cast<std::uint64_t>(j.b * NB * Mpad * 512 + j.t * resultTile +
                                                 (j.g * P + p) * resultLane);
    };
    const auto reg = [](std::initializer_list<int> pool, std::size_t i) {
        return "v" + std::to_string(*(pool.begin() + static_cast<std::ptrdiff_t>(i % pool.size())));
    };
    std::size_t pushes = 0;
    // Row `row` of job j's next weights, on every lane.
    // MXU (lane, K block) p's turns are MXUs p * R .. p * R + R - 1.
    const auto pushRow = [&](const Job& j, int row, const std::string& base) {
        for (std::int64_t p = 0; p < lanes(j) * G; ++p) {
            if (p % G >= splits(j))
                continue;
            const std::uint64_t block = weights(j, p / G, p % G);
            const auto source = reg({8, 13, 14}, pushes++);
            if (s.transposedRhs) {
                w.bundle("vld " + source + ", [" + at(block + static_cast<std::uint64_t>(row * 4096), base) +
                         "]");
            } else { // 8 rows, or 16 packed ones, of the block
                const auto address =
                    at(block + static_cast<std::uint64_t>(row * (128 / pushesPerBlock) * weightRow), base);
                w.bundle(weightRow == s.weightRowBytes() ? "vld " + source + ", [" + address + "]"
                         : s.packedRhs()
                             ? "vld.sh " + source + ", [" + address + "], " + std::to_string(weightRow)
                             : "vld.s " + source + ", [" + address + "], " + std::to_string(weightRow));
            }
            for (std::int64_t m = p * R; m < (p + 1) * R; ++m)
                w.bundle((s.transposedRhs ? "mxu.wpush.t " : "mxu.wpush ") + source + rhsFormat + onMxu(m));
        }
    };
    // Back to HBM by (batch, group of N blocks) as soon as its last K block is summed, while the MXU goes
    // on: the result is [batch..., lhs free..., rhs free...], row-major, so (b, m, n) is at
    // ((b * M + m) * N + n) * its element's bytes (narrowed on the way out when packed).
    DmaStream& back = buffers.back;
    // With the rows side by side one move takes the whole group, else one each lane.
    const auto writeBack = [&](const Job& j) {
        const std::int64_t backMoves = rowsSideBySide ? 1 : lanes(j), blocks = rowsSideBySide ? lanes(j) : 1;
        for (std::int64_t p = 0; p < backMoves; ++p) {
            const std::int64_t nb = tile.nb0 + j.g * P + p, b = tile.b0 + j.b;
            const auto width = std::min<std::int64_t>(blocks * 128, N - nb * 128);
            const std::int64_t e = out.elementBytes;
            w.move(back, isa::Space::Hbm,
                   out.address +
                       static_cast<std::uint64_t>(((b * s.M + tile.m0) * N + nb * 128) * e + shift.out),
                   isa::Space::Vmem, resultAddress(Job{j.b, j.g, 0, 0}, p),
                   {{M, resultRow, N * e}, {width, 4, e}}, out.narrowing(), 4, {.dstRegister = hbm.out});
        }
    };
    // A residual comes into its VMEM copy as the results will leave (writeBack's moves, the other way), on
    // the write-back's stream, awaited before the first one is added.
    bool residualPending = false;
    if (buffers.residualTensor && phase != TilePhase::Load) {
        const TensorRef& residual = *buffers.residualTensor;
        for (std::int64_t b = 0; b < B; ++b)
            for (std::int64_t g = 0; g < NG; ++g) {
                const Job j{b, g, 0, 0};
                const std::int64_t residualMoves = rowsSideBySide ? 1 : lanes(j),
                                   blocks = rowsSideBySide ? lanes(j) : 1;
                for (std::int64_t p = 0; p < residualMoves; ++p) {
                    const std::int64_t nb = tile.nb0 + g * P + p, e = residual.elementBytes;
                    const auto width = std::min<std::int64_t>(blocks * 128, N - nb * 128);
                    w.move(back, isa::Space::Vmem, resultAddress(j, p) - outV + buffers.residual,
                           isa::Space::Hbm,
                           residual.address +
                               static_cast<std::uint64_t>(((tile.b0 + b) * s.M + tile.m0) * N + nb * 128) *
                                   static_cast<std::uint64_t>(e),
                           {{M, N * e, resultRow}, {width, e, 4}}, residual.widening(), 4);
                }
            }
        residualPending = true;
    }
    // The sum and partial registers of tile `index` on lane p: 8 of each, in turn.
    const auto slot = [&](std::size_t index, std::int64_t p) {
        return index * static_cast<std::size_t>(P) + static_cast<std::size_t>(p);
    };
    // The partial sum of tile `index` on lane p over the K blocks before its own (from `ahead` tiles
    // further on), and those of every lane.
    const auto loadLanePartial = [&](std::size_t index, std::int64_t p, const std::string& base,
                                     std::uint64_t ahead) {
        w.bundle(resultLoad + reg({24, 25, 26, 27, 28, 29, 30, 31}, slot(index, p)) + ", [" +
                 at(resultAddress(jobs[index], p) + ahead * static_cast<std::uint64_t>(resultTile), base) +
                 "]" + resultStride);
    };
    const auto loadPartial = [&](std::size_t index, const std::string& base, std::uint64_t ahead) {
        if (jobs[index].kq > 0)
            for (std::int64_t p = 0; p < lanes(jobs[index]); ++p)
                loadLanePartial(index, p, base, ahead);
    };
    // Tile `index`'s products popped and summed (its partials loaded here unless `preloaded`). With a K
    // split, the products of the group's K blocks are summed first, in pairs (v4-v7 hold all but the
    // first: lanes x (kSplit - 1) <= 4). Each step is written for every lane before the next, so the
    // lanes' adds cover each other's latencies.
    std::size_t popped = 0;
    const auto accumulate = [&](std::size_t index, const std::string& base, bool preloaded = false) {
        const Job& j = jobs[index];
        const std::int64_t L = lanes(j), S = splits(j);
        const auto sumOf = [&](std::int64_t p) {
            return reg({16, 17, 18, 19, 20, 21, 22, 23}, slot(index, p));
        };
        if (j.kq > 0 && !preloaded)
            for (std::int64_t p = 0; p < L; ++p)
                loadLanePartial(index, p, base, 0);
        std::vector<std::string> products(static_cast<std::size_t>(L * S));
        for (std::int64_t k = 0; k < S; ++k)
            for (std::int64_t p = 0; p < L; ++p) {
                auto& product = products[static_cast<std::size_t>(p * S + k)];
                product = k == 0 ? sumOf(p) : reg({4, 5, 6, 7}, popped++);
                w.bundle("mxu.pop " + product + onMxu(mxuOf(j, p, k)));
            }
        for (std::int64_t step = 1; step < S; step *= 2)
            for (std::int64_t p = 0; p < L; ++p)
                for (std::int64_t a = 0; a + step < S; a += 2 * step) {
                    const auto& into = products[static_cast<std::size_t>(p * S + a)];
                    w.bundle("vadd.f32 " + into + ", " + into + ", " +
                             products[static_cast<std::size_t>(p * S + a + step)]);
                }
        if (j.kq > 0)
            for (std::int64_t p = 0; p < L; ++p)
                w.bundle("vadd.f32 " + sumOf(p) + ", " +
                         reg({24, 25, 26, 27, 28, 29, 30, 31}, slot(index, p)) + ", " + sumOf(p));
        // The bias of each lane's N block, its row in all 8 rows of v15 (free here), after the last K block;
        // then the residual's register, where the result's goes.
        for (std::int64_t p = 0; buffers.biased && j.kq == KQ - 1 && p < L; ++p) {
            const std::int64_t nb = tile.nb0 + j.g * P + p;
            w.bundle("vld.s v15, [" + std::to_string(buffers.bias + static_cast<std::uint64_t>(nb * 512)) +
                     "], 0");
            w.bundle("vadd.f32 " + sumOf(p) + ", " + sumOf(p) + ", v15");
            if (!buffers.residualTensor)
                continue;
            if (residualPending) { // it came in while the first blocks were multiplied
                w.waitAll(back);
                residualPending = false;
            }
            w.bundle(resultLoad + "v15, [" + std::to_string(resultAddress(j, p) - outV + buffers.residual) +
                     "]" + resultStride);
            w.bundle("vadd.f32 " + sumOf(p) + ", " + sumOf(p) + ", v15");
        }
        for (std::int64_t p = 0; p < L; ++p)
            w.bundle(resultStore + sumOf(p) + ", [" + at(resultAddress(j, p), base) + "]" + resultStride);
        if (j.kq == KQ - 1 && j.t == tiles - 1)
            writeBack(j);
    };
    needGroup(jobs.front());
    for (int row = 0; row < pushesPerBlock; ++row)
        pushRow(jobs.front(), row, {});
    int stagedRows = pushesPerBlock; // pushes of the next block staged so far (all: the first is complete)
    // Tile j's rows through the MXU: loaded (from `ahead` tiles further on), and multiplied.
    // Bytes of 8 lhs rows in a panel; a tile that is the second of a packed pair has no load or matmul.
    const std::int64_t tileBytes = 8 * s.lhsRowBytes();
    const auto firstOfPair = [&](std::size_t i) { return jobs[i].t % pair == 0; };
    const auto lhsTile = [&](std::size_t i, std::int64_t k) {
        const Job& j = jobs[i];
        return lhsV + static_cast<std::uint64_t>((j.b * KB + j.kq * G + k) * panelBytes + j.t * tileBytes);
    };
    // The register of job i's rows of K block k of its group: G a register of rows, in turn.
    const auto rowsRegister = [&](std::size_t i, std::int64_t k) {
        return reg({0, 1, 2, 3, 9, 10, 11, 12},
                   i / static_cast<std::size_t>(pair) * static_cast<std::size_t>(G) +
                       static_cast<std::size_t>(k));
    };
    const auto loadRows = [&](std::size_t i, const std::string& base, std::uint64_t ahead) {
        if (firstOfPair(i))
            for (std::int64_t k = 0; k < splits(jobs[i]); ++k)
                w.bundle("vld " + rowsRegister(i, k) + ", [" +
                         at(lhsTile(i, k) + ahead * static_cast<std::uint64_t>(tileBytes), base) + "]");
    };
    const auto multiply = [&](std::size_t i) {
        if (firstOfPair(i))
            for (std::int64_t k = 0; k < splits(jobs[i]); ++k)
                for (std::int64_t p = 0; p < lanes(jobs[i]); ++p)
                    w.bundle("mxu.mm " + rowsRegister(i, k) + lhsFormat + onMxu(mxuOf(jobs[i], p, k)));
    };
    const auto issue = [&](std::size_t i, const std::string& base) {
        loadRows(i, base, 0);
        multiply(i);
    };
    // In loop mode a block's steady state is a counted loop of 8 tiles an iteration (8 / lanes with several
    // MXUs): from its 16th tile on, the next block's weights are staged and every pop sums a tile of the
    // same block, so tiles differ only in their addresses. And the middle K blocks of every (batch, N
    // block), from the third to the one before the last, are a loop around that one: their code differs
    // only in the lhs panel and the next block's weights (the first two and the last stay unrolled: the
    // first sums nothing, the last writes back), their operands all awaited before it.
    // The steady loop starts at the first tile whose pop is of the same block (the 16th, or later when R
    // MXUs hold more products in flight). An iteration preloads its partial sums, a register each of 8, so
    // with several lanes it holds fewer tiles; with a K split its rows take G registers a step. The tiles
    // of an iteration are a whole number of turns, so every iteration's land on the same MXUs.
    // With a K split, "block" below is a group of G K blocks.
    constexpr std::int64_t kFirstLoopedBlock = 2;
    const std::int64_t steadyFrom = std::max<std::int64_t>(16, depth);
    const std::int64_t unroll =
        std::max(std::min<std::int64_t>(8 / P, 8 * pair / G) / (R * pair) * (R * pair), R * pair);
    // Each iteration loads the next one's rows: the loop leaves at least `unroll` tiles after it to load.
    // An iteration's partial sums take a register each (8 in all): with more tiles and lanes than that the
    // block stays unrolled.
    const std::int64_t steadyIterations =
        unroll * P <= 8 && unroll / pair * G <= 8 ? (tiles - steadyFrom - unroll) / unroll : 0;
    const std::int64_t blockIterations = KQ - 1 - kFirstLoopedBlock;
    // A block's code is the same for every middle block once its weights are all staged within it and its
    // pops sum only the block before (tiles >= 16 and >= depth), with or without a steady loop inside (a
    // tile of 128 rows has none: without the block loop, a K of 8192 wrote 64 blocks of 16 tiles each).
    const bool steadyLoop = steadyIterations >= 2;
    const bool loopBlocks = w.loops() &&
                            w.loopDepth() + (steadyLoop ? 2 : 1) <= ProgramWriter::kMaxLoopDepth &&
                            tiles >= std::max<std::int64_t>(16, depth) && blockIterations >= 2 &&
                            ProgramWriter::loopFits(blockIterations, G * panelBytes) &&
                            ProgramWriter::loopFits(blockIterations, G * NB * weightBlock);
    // Writes job i (or, at a block's 16th tile, its steady loop) and returns the next job to write.
    const auto emitStep = [&](std::size_t i, const Bases& bases) -> std::size_t {
        const Job& j = jobs[i];
        if (w.loops() && w.loopDepth() < ProgramWriter::kMaxLoopDepth && j.t == steadyFrom &&
            steadyIterations >= 2) {
            // Software-pipelined: the first iteration's rows are loaded before the loop, and each iteration
            // loads the next one's after its matmuls, so no matmul waits for its load at the loop's head.
            // The lhs offset starts from the block loop's (when there is one); the results' does not move
            // with the block.
            const auto before = static_cast<std::size_t>(lag); // the tile a job's pop sums
            for (std::size_t u = 0; u < static_cast<std::size_t>(unroll); ++u) {
                loadRows(i + u, bases.lhs, 0);
                loadPartial(i + u - before, bases.result, 0);
            }
            // The lhs rows and the results move on alike unless the rows are packed (or start from a
            // block loop's offset): then the results have an offset of their own.
            const bool ownResultOffset = !bases.lhs.empty() || tileBytes != resultTile;
            w.beginLoop(steadyIterations, unroll * tileBytes, ownResultOffset ? unroll * resultTile : 0,
                        bases.lhs);
            const std::string lhsBase = w.offset(), resultBase = ownResultOffset ? w.offset2() : w.offset();
            for (std::size_t u = 0; u < static_cast<std::size_t>(unroll); ++u) {
                accumulate(i + u - before, resultBase, true);
                multiply(i + u);
            }
            for (std::size_t u = 0; u < static_cast<std::size_t>(unroll); ++u) {
                loadRows(i + u, lhsBase, static_cast<std::uint64_t>(unroll));
                loadPartial(i + u - before, resultBase, static_cast<std::uint64_t>(unroll));
            }
            w.endLoop();
            return i + static_cast<std::size_t>(steadyIterations * unroll);
        }
        if (j.t == 0) { // a new block: its staged weights become active
            needGroup(j);
            for (; stagedRows < pushesPerBlock; ++stagedRows)
                pushRow(j, stagedRows, {});
            for (std::int64_t m = 0; m < lanes(j) * G * R; ++m)
                if (m / R % G < splits(j))
                    w.bundle(m == 0 ? std::string("mxu.wcommit") : "mxu.wcommit mxu=" + std::to_string(m));
            stagedRows = 0;
        }
        if (i >= static_cast<std::size_t>(lag))
            accumulate(i - static_cast<std::size_t>(lag), bases.result);
        issue(i, bases.lhs);
        // Stage a row of the next block's weights while this block streams.
        const bool hasNext = i + static_cast<std::size_t>(tiles - j.t) < jobs.size();
        if (hasNext && stagedRows < pushesPerBlock) {
            const Job& next = jobs[i + static_cast<std::size_t>(tiles - j.t)];
            needGroup(next);
            pushRow(next, stagedRows++, bases.weights);
        }
        return i + 1;
    };
    for (std::size_t i = 0; i < jobs.size();) {
        const Job& j = jobs[i];
        if (loopBlocks && j.kq == kFirstLoopedBlock && j.t == 0) {
            // The middle blocks loop in runs of the blocks some input streams bring, each run's operands
            // (and those of the block after it, whose weights its last block stages) awaited just before
            // it, so the MXU works on a run while the later ones are on their way. One loop over all of
            // them, everything awaited first, made the looped 512 x 4096 x 4096 projection wait 85,000
            // cycles more than the unrolled code.
            // At most four runs (of two streams' blocks when there are eight), so the code stays within
            // about twice a single loop's.
            // A K group's run is its last block's.
            const auto runOf = [&](std::int64_t kq) {
                return streamOf(j.g, std::min(kq * G + G - 1, KB - 1)) * 4 / static_cast<std::size_t>(groups);
            };
            for (std::int64_t kb = kFirstLoopedBlock; kb < KQ - 1;) {
                std::int64_t runEnd = kb + 1;
                while (runEnd < KQ - 1 && runOf(runEnd) == runOf(kb))
                    ++runEnd;
                for (std::int64_t k = kb * G; k <= std::min(runEnd * G + G - 1, KB - 1); ++k)
                    needBlock(j.g, k);
                const std::int64_t iterations = runEnd - kb;
                const bool loop = iterations >= 2;
                if (loop)
                    w.beginLoop(iterations, G * panelBytes, G * NB * weightBlock);
                const Bases bases = loop ? Bases{w.offset(), {}, w.offset2()} : Bases{};
                for (std::size_t k = i; k < i + static_cast<std::size_t>(tiles);)
                    k = emitStep(k, bases);
                if (loop)
                    w.endLoop();
                i += static_cast<std::size_t>(iterations * tiles);
                kb = runEnd;
            }
            continue;
        }
        i = emitStep(i, {});
    }
    issueThroughStream(groups - 1); // every move was needed before: none is left
    for (std::size_t i =
             jobs.size() > static_cast<std::size_t>(lag) ? jobs.size() - static_cast<std::size_t>(lag) : 0;
         i < jobs.size(); ++i)
        accumulate(i, {});
    // The result panels are the next tile's: its results must have left first (a pipelined loop waits
    // before its next use of them instead).
    if (phase == TilePhase::LoadAndCompute)
        w.waitAll(back);
}

} // namespace xps::shlo::lower::dot
