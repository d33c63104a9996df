// How a dot_general tile's work is laid out (internal to core/stablehlo, declared in lower_dot_tile.h): the
// MXU layout of fewest estimated cycles, the shares of the input streams its operands come on, and the
// padding its kernel must find zeroed.

#include "stablehlo/lower_dot_tile.h"

#include <cmath>
#include <limits>

namespace xps::shlo::lower::dot {

namespace {

// Turns for `lanes` x `kSplit` MXUs: doubled while the MXUs and a steady loop's registers allow and the
// tiles of a block divide evenly among them.
std::int64_t turnsFor(std::int64_t mxus, std::int64_t used, std::int64_t pair, std::int64_t matmulsPerBlock)
{
    std::int64_t turns = 1;
    while (used * turns * 2 <= mxus && used * turns * 2 * pair <= 8 && matmulsPerBlock % (turns * 2) == 0 &&
           matmulsPerBlock >= 4 * turns)
        turns *= 2;
    return turns;
}

} // namespace

std::vector<std::int64_t> streamStarts(std::int64_t moves, std::int64_t streams, std::int64_t firstMoves)
{
    std::vector<std::int64_t> starts(static_cast<std::size_t>(streams + 1), moves);
    starts[0] = 0;
    if (streams <= 1 || moves <= streams) {
        for (std::int64_t s = 1; s < streams; ++s)
            starts[static_cast<std::size_t>(s)] = std::min(s, moves);
        return starts;
    }
    // Stream s's share grows by r up to the middle stream and falls by r after it: the first is small,
    // so the first matmul waits for little, and the last too, so a kernel that waits for its operands
    // has little left to compute once the last has arrived. r: the first share holds firstMoves.
    const auto weight = [&](double r, std::int64_t s) {
        return std::pow(r, static_cast<double>(std::min(s, streams - 1 - s)));
    };
    const auto firstShare = [&](double r) {
        double sum = 0;
        for (std::int64_t s = 0; s < streams; ++s)
            sum += weight(r, s);
        return weight(r, 0) / sum;
    };
    double growth = 1.0;
    if (static_cast<double>(firstMoves) < firstShare(1.0) * static_cast<double>(moves)) {
        double lo = 1.0, hi = static_cast<double>(moves);
        for (int i = 0; i < 64; ++i) {
            const double mid = (lo + hi) / 2;
            (firstShare(mid) * static_cast<double>(moves) > static_cast<double>(firstMoves) ? lo : hi) = mid;
        }
        growth = hi;
    }
    double total = 0, sum = 0;
    for (std::int64_t s = 0; s < streams; ++s)
        total += weight(growth, s);
    for (std::int64_t s = 1; s < streams; ++s) {
        sum += weight(growth, s - 1);
        starts[static_cast<std::size_t>(s)] =
            std::clamp<std::int64_t>(std::llround(static_cast<double>(moves) * sum / total),
                                     starts[static_cast<std::size_t>(s - 1)] + 1, moves - (streams - s));
    }
    return starts;
}

MxuLayout mxuLayout(const isa::MachineConfig& machine, std::int64_t nBlocks, std::int64_t kBlocks,
                    std::int64_t pair, std::int64_t matmulsPerBlock, int pushesPerBlock, double loadBytes)
{
    const std::int64_t mxus = std::clamp<std::int64_t>(machine.mxuCount, 1, 8);
    nBlocks = std::max<std::int64_t>(nBlocks, 1);
    kBlocks = std::max<std::int64_t>(kBlocks, 1);
    const double steps = static_cast<double>(std::max<std::int64_t>(matmulsPerBlock, 1));
    const double occupancy = static_cast<double>(machine.occMxuMatmul * pair);
    const std::int64_t fifo = std::clamp<std::int64_t>(machine.mxuResultFifoDepth, 1, 16);
    // Cycles of one step (one lhs register of rows through every lane's K blocks) on the slot or MXU it
    // keeps busiest: a bundle has one vector load, store, matrix push and matrix pop slot and two vector
    // ones. Loads: the rows of each K block, the partial sums (after the first K group) and the next
    // blocks' weight rows; pushes: the matmuls and the weight rows; pops and adds: a product each.
    const auto cost = [&](const MxuLayout& l) {
        const double p = static_cast<double>(l.lanes), g = static_cast<double>(l.kSplit),
                     r = static_cast<double>(l.turns), pr = static_cast<double>(pair);
        const std::int64_t groups = (nBlocks + l.lanes - 1) / l.lanes,
                           kGroups = (kBlocks + l.kSplit - 1) / l.kSplit;
        const double summing = static_cast<double>(kGroups - 1) / static_cast<double>(kGroups);
        const double weightRows = p * g * pushesPerBlock / steps;
        // Each MXU also takes its block's weight pushes on its weight path, and holds at most a FIFO of
        // results: a step's matmul comes back a latency after it, so fewer steps in flight than that
        // latency's worth wait for it.
        const double pushes = static_cast<double>(pushesPerBlock * machine.occMxuWpush) / steps;
        const double inFlight = static_cast<double>(std::max<std::int64_t>(fifo / pair, 1)) * r;
        const double latency = static_cast<double>(machine.latMxuMatmul) + occupancy;
        const double step =
            std::max({occupancy / r, g + pr * p * summing + weightRows, p * g + weightRows * r, pr * p * g,
                      pr * p, pr * p * g / 2, pushes, latency / inFlight});
        // The operands' moves: one per K block for the lhs panels and one per K block and weight group
        // (emitTile: several lanes bring their weights by group), each engine starting its next move a
        // setup after the last; and their bytes at HBM's rate.
        const double moves = static_cast<double>(kBlocks * (1 + (l.lanes > 1 ? groups : 1)));
        const double engines = static_cast<double>(std::max<std::int64_t>(machine.dmaEngines, 1));
        const double setup = static_cast<double>(machine.dmaSetupCycles);
        const double streaming =
            loadBytes /
            machine.bytesPerCycle(std::min(machine.hbmBandwidthGBs, machine.dmaEnginePeakGBs * engines));
        // An engine that prefetches descriptors sets up the next ones while it moves bytes: the setups cost
        // only where they outrun the bytes, and the first is paid once.
        const double prefetch =
            static_cast<double>(std::max<std::int64_t>(machine.dmaPrefetchDescriptors, 0));
        const double loading = prefetch > 0
                                   ? setup + std::max(streaming, moves * setup / (engines * (1 + prefetch)))
                                   : moves * setup / engines + streaming;
        // They overlap the compute but for the first K group's wait: a fraction of the shorter counts too.
        // With one lane every K block's move brings the weights of all the groups, which the MXUs take
        // group by group: only the first group's compute overlaps the moves.
        const double compute = static_cast<double>(groups * kGroups) * steps * step;
        const double overlapped =
            l.lanes > 1 || groups == 1 ? compute : compute / static_cast<double>(groups);
        return std::max(overlapped, loading) + 0.25 * std::min(overlapped, loading) + (compute - overlapped);
    };
    // Ties keep the earlier: most lanes, least split.
    MxuLayout best;
    double bestCost = std::numeric_limits<double>::infinity();
    for (std::int64_t lanes = std::min(nBlocks, mxus); lanes >= 1; --lanes)
        for (std::int64_t split = 1;
             split <= 4 && split <= kBlocks && lanes * split <= mxus && lanes * (split - 1) <= 4;
             split *= 2) {
            const MxuLayout l{lanes, turnsFor(mxus, lanes * split, pair, matmulsPerBlock), split};
            if (const double c = cost(l); c < bestCost) {
                best = l;
                bestCost = c;
            }
        }
    return best;
}

void zeroKPadding(ProgramWriter& w, const DotShape& s, const DotTile& tile, const DotBuffers& buffers)
{
    // Only K's padding must be zero: the products of padding rows of M or columns of N land in rows and
    // columns of the result that are never written back, whatever VMEM held there, while a padding lane of
    // K multiplies into every result. Both operands' are zeroed (0 x NaN would not be 0): the lhs panels
    // of the last K block, and the weight rows past K in it (the whole block when the rhs is transposed:
    // its K runs along the lanes). Zeroing everything, as the padding of M and N would need, took 6,400
    // cycles of stores before a 1 x 3966 x 3312 matmul's first DMA.
    if (s.K % 128 == 0)
        return;
    const std::int64_t Mpad = s.rowsPadded(tile.mc), NB = tile.nbc, KB = s.KB;
    const std::int64_t panelBytes = Mpad * s.lhsRowBytes(), weightRow = NB * s.weightRowBytes();
    const std::int64_t blockBytes = NB * s.weightBlockBytes();
    // Stores write 4 KiB: each range widens to whole stores within the set's operands, which its moves
    // rewrite after this.
    const std::uint64_t low = buffers.lhs, high = buffers.out;
    const auto zero = [&](std::uint64_t from, std::uint64_t to) {
        from = low + (from - low) / 4096 * 4096;
        to = std::min(high, low + (to - low + 4095) / 4096 * 4096);
        if (to > from)
            w.fill("v15", from, to - from);
    };
    w.bundle("vbcast v15, 0");
    for (std::int64_t b = 0; b < tile.bc; ++b) {
        const auto panel = buffers.lhs + static_cast<std::uint64_t>((b * KB + KB - 1) * panelBytes);
        zero(panel, panel + static_cast<std::uint64_t>(panelBytes));
        const auto block = buffers.rhs + static_cast<std::uint64_t>((b * KB + KB - 1) * blockBytes);
        const std::int64_t from = s.transposedRhs ? 0 : (s.K % 128) * weightRow;
        zero(block + static_cast<std::uint64_t>(from), block + static_cast<std::uint64_t>(blockBytes));
    }
}

} // namespace xps::shlo::lower::dot
