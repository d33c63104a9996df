// Element-wise kernels (lower_kernels.h): every input of the result's shape streams HBM -> VMEM in tiles
// of up to 16 vector registers (64 KiB), four tiles in flight; each register of the result is computed by
// the vector code of every step of the kernel in turn (one op, or a fusion of several: lower_fusion.h), the
// steps' results kept in registers, and the result streams back. Rank-0 inputs and splat constants are
// broadcast into a register once.

#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <string>

#include "stablehlo/lower_fusion.h"
#include "stablehlo/lower_kernels.h"
#include "stablehlo/lower_register_sets.h"
#include "stablehlo/lower_views.h"

namespace xps::shlo::lower {

namespace {

constexpr std::int64_t kTileVregs = 16;
// The row layout's tiles (whole groups of 8 rows) go up to 256 KiB: a DMA's fixed costs (on tpu_v4.json
// about 0.45 us of setup and completion) are then a small part of its transfer, where 64 KiB tiles of
// long rows (one group of 1536) spent most of a reduction's time on them.
constexpr std::int64_t kRowTileVregs = 64;
constexpr std::int64_t kTilesInFlight = 4;
constexpr int kResult = 6;
// Registers of the result computed side by side (their code interleaved) where registers last.
constexpr std::size_t kRegisterSets = 4;

} // namespace

void broadcastScalar(ProgramWriter& w, const TensorRef& scalar, int vreg)
{
    if (scalar.scalarConstant) {
        const double value = *scalar.scalarConstant;
        const std::uint32_t bits = wordOf(scalar.type.element, value);
        w.bundle("vbcast " + v(vreg) + ", " + std::to_string(bits));
        return;
    }
    auto s = w.stream();
    w.dma(s, isa::Space::Smem, 0, isa::Space::Hbm, scalar.address,
          static_cast<std::uint64_t>(scalar.elementBytes), 1, 0, 0, {}, scalar.widening());
    w.waitAll(s);
    w.bundle("sld s1, [0]");
    w.bundle("vbcast " + v(vreg) + ", s1");
}

void lowerElementwise(ProgramWriter& w, const ElementwiseKernel& kernel, const TensorRef& out)
{
    // How each input is read (lower_views.h): first, as it may write a view out as a kernel of its own.
    std::vector<TensorRef> in = kernel.inputs;
    // The elements computed: the result's, or for a reduction fusion its operand's (the last step's).
    const auto& reductions = kernel.reductions;
    const auto& outputs = kernel.outputs;
    const bool reduction = !reductions.empty();
    TensorRef space = out;
    space.type = kernel.steps.back().op->resultTypes.at(0);
    const KernelFeeds feeds = prepareFeeds(w, in, space, reduction);
    const auto feed = [&](std::size_t i) { return feeds.feeds[i]; };
    // Each input and each step's result but the last (kResult) a register of its own, for the whole kernel.
    static constexpr std::array<int, kElementwiseRegisters> kRegisters = {0,  1,  2,  10, 16, 17, 18, 19, 20,
                                                                          21, 22, 23, 24, 25, 26, 27, 28, 29};
    std::size_t taken = 0;
    const auto take = [&] {
        if (taken == kRegisters.size())
            lowerFail("an element-wise kernel needing more than " + std::to_string(kElementwiseRegisters) +
                      " registers (a fusion planning bug)");
        return kRegisters[taken++];
    };
    bool compact = false;
    // Each step's result a register of its own set: a new one, or one whose value no later step reads.
    const auto stepRegisters = [&](const std::vector<int>& inputs, std::vector<std::string>& code,
                                   bool lastIsResult, bool optional) -> std::optional<std::vector<int>> {
        const std::size_t n = kernel.steps.size();
        std::vector<std::size_t> lastUse(n, 0);
        for (std::size_t k = 0; k < n; ++k)
            for (const int operand : kernel.steps[k].operands)
                if (operand < 0)
                    lastUse[static_cast<std::size_t>(~operand)] = k;
        std::vector<int> registers, freed;
        for (std::size_t k = 0; k < n; ++k) {
            const ElementwiseStep& step = kernel.steps[k];
            int result = kResult;
            if (k + 1 < n || !lastIsResult) {
                // A new register while they last (no false dependence on a dead value for the packer to
                // respect), else one this set freed; compact sets take freed ones first, so that more sets
                // fit.
                if (compact && !freed.empty()) {
                    result = freed.back();
                    freed.pop_back();
                } else if (taken < kRegisters.size()) {
                    result = take();
                } else if (!freed.empty()) {
                    result = freed.back();
                    freed.pop_back();
                } else if (optional) {
                    return std::nullopt;
                } else {
                    result = take(); // fails: more registers than the plan allowed
                }
            }
            registers.push_back(result);
            std::vector<int> operands;
            for (const int operand : step.operands)
                operands.push_back(operand >= 0 ? inputs.at(static_cast<std::size_t>(operand))
                                                : registers.at(static_cast<std::size_t>(~operand)));
            // A conversion that keeps the bytes (fused as a member of the chain it sits in) is a move.
            const ElementType to = step.op->resultTypes.at(0).element;
            const auto stepCode =
                step.op->kind == OpKind::Convert && sameBytes(step.in, to)
                    ? std::vector<std::string>{"vmov " + v(result) + ", " + v(operands.at(0))}
                    : elementwiseCode(*step.op, step.in, to, operands, result);
            if (stepCode.empty())
                lowerFail(std::string(opName(step.op->kind)) + " on " +
                          std::string(elementTypeName(step.in)) + " has no lowering to xpu-v1 yet" +
                          (k + 1 < n ? " (" + step.op->resultName + ", fused into this op)" : ""));
            code.insert(code.end(), stepCode.begin(), stepCode.end());
            // Values this step read last, unless a reduction sums them or the kernel writes them.
            const auto kept = [&](int operand) {
                return std::any_of(reductions.begin(), reductions.end(),
                                   [&](const ElementwiseReduction& r) { return r.operand == operand; }) ||
                       std::any_of(outputs.begin(), outputs.end(), [&](const ElementwiseKernel::Output& o) {
                           return o.step == static_cast<std::size_t>(~operand);
                       });
            };
            for (const int operand : step.operands)
                if (operand < 0 && lastUse[static_cast<std::size_t>(~operand)] == k && !kept(operand) &&
                    std::find(freed.begin(), freed.end(), registers[static_cast<std::size_t>(~operand)]) ==
                        freed.end())
                    freed.push_back(registers[static_cast<std::size_t>(~operand)]);
        }
        return registers;
    };
    std::vector<int> inputRegister;
    std::vector<std::size_t> streamed; // inputs read tile by tile
    for (std::size_t i = 0; i < in.size(); ++i) {
        inputRegister.push_back(take());
        if (feed(i) == Feed::Streamed)
            streamed.push_back(i);
    }
    // Each reduction's running sums (or maxima) and its initial value; a maximum's NaN witness and the
    // initial value's (lower_reduce.cpp: NaN in the lanes that saw one, -0 in the others, added last).
    std::vector<int> sums, initial, witness, initialWitness;
    for (std::size_t r = 0; r < reductions.size(); ++r) {
        sums.push_back(take());
        initial.push_back(take());
        const bool maximum = reductions[r].kind == OpKind::Maximum;
        witness.push_back(maximum ? take() : -1);
        initialWitness.push_back(maximum ? take() : -1);
    }
    const std::size_t inputsTaken = taken;
    const bool rounds = std::any_of(kernel.steps.begin(), kernel.steps.end(),
                                    [](const ElementwiseStep& step) { return isRounding(step.op->kind); });
    // Up to four register sets take registers of the result in turn (the row layout: column blocks), their
    // code interleaved, when the registers last: the packer fills bundles in program order, so one
    // register's loads and steps fill the latencies of the others' instead of each step's latency being
    // waited out, as XLA's software-pipelined loops do. What is read once per kernel or per group of rows
    // is shared by every set; each set has its own inputs read per block, step results and scratch.
    const auto perBlock = [&](std::size_t i) {
        return feed(i) == Feed::Streamed || feed(i) == Feed::RowSlice || feed(i) == Feed::RowValue;
    };
    struct RegisterSet
    {
        std::vector<int> inputs;
        std::vector<std::string> code;
        int result = kResult;
        std::vector<int> steps; // each step's result
    };
    const auto buildSets = [&] {
        taken = inputsTaken;
        std::vector<RegisterSet> sets(1, RegisterSet{inputRegister, {}, kResult, {}});
        sets.front().steps = *stepRegisters(inputRegister, sets.front().code, true, false);
        while (sets.size() < kRegisterSets) {
            const std::size_t before = taken;
            RegisterSet set{inputRegister, {}, 0, {}};
            bool made = true;
            for (std::size_t i = 0; i < in.size() && made; ++i) {
                if (!perBlock(i))
                    continue;
                made = taken < kRegisters.size();
                if (made)
                    set.inputs[i] = take();
            }
            std::optional<std::vector<int>> registers;
            if (made)
                registers = stepRegisters(set.inputs, set.code, false, true);
            made = registers && renameScratch(set.code, [&]() -> std::optional<int> {
                       if (taken == kRegisters.size())
                           return std::nullopt;
                       return take();
                   });
            if (!made) {
                taken = before; // not enough registers for another set
                break;
            }
            set.result = registers->back();
            set.steps = std::move(*registers);
            sets.push_back(std::move(set));
        }
        return sets;
    };
    // Sets whose steps each take a new register, or compact ones where more of those fit: a chain as long
    // as GELU's holds its values in fewer registers than it has steps.
    std::vector<RegisterSet> sets = buildSets();
    if (sets.size() < kRegisterSets && kernel.steps.size() > 1) {
        const std::size_t takenBySets = taken;
        compact = true;
        std::vector<RegisterSet> compactSets = buildSets();
        if (compactSets.size() > sets.size())
            sets = std::move(compactSets);
        else
            taken = takenBySets; // the first sets, as they were built
    }
    // The code of the first n sets, one instruction of each in turn.
    std::vector<std::vector<std::string>> groupCode(sets.size() + 1);
    for (std::size_t n = 1; n <= sets.size(); ++n)
        for (std::size_t i = 0;; ++i) {
            bool any = false;
            for (std::size_t k = 0; k < n; ++k)
                if (i < sets[k].code.size()) {
                    groupCode[n].push_back(sets[k].code[i]);
                    any = true;
                }
            if (!any)
                break;
        }
    setUpElementwiseConstants(w, rounds ? OpKind::Floor : OpKind::Add);
    for (std::size_t i = 0; i < in.size(); ++i)
        if (feed(i) == Feed::Scalar) {
            TensorRef scalar = in[i];
            if (scalar.splat)
                scalar.scalarConstant = scalar.splat;
            broadcastScalar(w, scalar, inputRegister[i]);
        } else if (feed(i) == Feed::Pattern) {
            // The operand once into VMEM, doubled in place until it fills a register, then loaded.
            const TensorRef& x = in[i];
            const auto patternBytes = static_cast<std::uint64_t>(flatPeriod(x) * 4);
            const std::uint64_t buffer = w.vmem(kVregBytes, "a broadcast pattern");
            auto s = w.stream();
            w.dma(s, isa::Space::Vmem, buffer, isa::Space::Hbm, x.address, x.hbmBytes(patternBytes), 1, 0, 0,
                  {}, x.widening());
            for (std::uint64_t filled = patternBytes; filled < kVregBytes; filled *= 2) {
                w.waitAll(s);
                w.dma(s, isa::Space::Vmem, buffer + filled, isa::Space::Vmem, buffer, filled);
            }
            w.waitAll(s);
            w.bundle("vld " + v(inputRegister[i]) + ", [" + std::to_string(buffer) + "]");
        }
    for (std::size_t r = 0; r < reductions.size(); ++r) {
        TensorRef init = reductions[r].init;
        if (init.splat)
            init.scalarConstant = init.splat;
        broadcastScalar(w, init, initial[r]);
        if (reductions[r].kind == OpKind::Maximum) {
            w.bundle("vbcast " + v(initialWitness[r]) + ", 2147483648");
            w.bundle("vcmp.eq.f32 v3, " + v(initial[r]) + ", " + v(initial[r]));
            w.bundle("vsel " + v(initialWitness[r]) + ", v3, " + v(initialWitness[r]) + ", " + v(initial[r]));
        }
    }
    const Operation& op = *kernel.steps.back().op;
    const std::int64_t bytes = space.type.elementCount() * 4;
    const std::int64_t vregs = (bytes + kVregBytes - 1) / kVregBytes;
    // Tiles of up to 16 registers, fewer when VMEM is small: the slots of every stream for every tile in
    // flight take at most a quarter of it (the rest is left to the kernel's constants and alignment), so
    // a machine with less VMEM gets smaller tiles, not a failure. In the row layout a tile is whole groups
    // of 8 rows.
    const auto slotsNeeded = static_cast<std::int64_t>(streamed.size() + 1 + outputs.size()) * kTilesInFlight;
    const std::int64_t fitting = static_cast<std::int64_t>(w.vmemCapacity()) / 4 / slotsNeeded / kVregBytes;
    const std::int64_t groupBytes = feeds.rows ? 8 * feeds.rows->width * 4 : kVregBytes;
    const std::int64_t groupVregs = groupBytes / kVregBytes;
    const std::int64_t tileGroups =
        std::clamp<std::int64_t>(std::min(feeds.rows ? kRowTileVregs : kTileVregs, fitting) / groupVregs, 1,
                                 std::max<std::int64_t>(vregs / groupVregs, 1));
    const std::int64_t tileBytes = tileGroups * groupBytes;
    const std::int64_t tiles = (bytes + tileBytes - 1) / tileBytes;
    // Tiles in flight: a DMA's fixed costs (setup, completion) are hidden behind the transfers of the
    // tiles ahead of it, as in the kernels XLA writes; 4 keeps 3 tiles landing while one computes.
    const std::int64_t inFlight = std::min<std::int64_t>(kTilesInFlight, tiles);
    const auto slotOf = [&](std::int64_t t) { return static_cast<std::size_t>(t % inFlight); };
    std::vector<std::uint64_t> slots; // operand k, slot s: slots[k * inFlight + s]
    for (std::size_t k = 0; k < streamed.size(); ++k)
        for (std::int64_t s = 0; s < inFlight; ++s)
            slots.push_back(w.vmem(static_cast<std::uint64_t>(tileBytes), "an element-wise tile"));
    std::vector<std::uint64_t> outSlots;     // result r, slot s: outSlots[r * inFlight + s]
    std::vector<std::uint64_t> writtenSlots; // output o, slot s: writtenSlots[o * inFlight + s]
    for (std::size_t o = 0; o < outputs.size() * static_cast<std::size_t>(inFlight); ++o)
        writtenSlots.push_back(w.vmem(static_cast<std::uint64_t>(tileBytes), "an element-wise tile"));
    const auto writtenSlot = [&](std::size_t o, std::size_t slot) {
        return writtenSlots[o * static_cast<std::size_t>(inFlight) + slot];
    };
    std::vector<DmaStream> inputs, streams;
    for (std::size_t r = 0; r < std::max<std::size_t>(reductions.size(), 1); ++r)
        for (std::int64_t s = 0; s < inFlight; ++s) // a reduction's: a register of sums for each 8 rows
            outSlots.push_back(
                reduction ? w.vmem(static_cast<std::uint64_t>(tileGroups * kVregBytes), "a tile's sums")
                          : w.vmem(static_cast<std::uint64_t>(tileBytes), "an element-wise tile"));
    for (std::int64_t s = 0; s < inFlight; ++s) {
        inputs.push_back(w.stream());
        streams.push_back(w.stream());
    }
    const auto tileSpan = [&](std::int64_t t) { return std::min(tileBytes, bytes - t * tileBytes); };
    // `looped`: the tile is written as the body of a counted loop, its HBM addresses through the loop's
    // offset (iteration x inFlight tiles): the first offset for 4-byte tensors, the second for packed ones,
    // the third for the views whose rows move with the tiles.
    // Tiles are counted in VMEM's 4-byte elements; a packed tensor's HBM tile is half as many bytes.
    const auto loopOffset = [](const TensorRef& t, bool looped) {
        return !looped ? LoopOffset::None : t.packed() ? LoopOffset::Second : LoopOffset::First;
    };
    const auto fetch = [&](std::int64_t t, bool looped) {
        for (std::size_t k = 0; k < streamed.size(); ++k) {
            const TensorRef& x = in[streamed[k]];
            w.dma(inputs[slotOf(t)], isa::Space::Vmem,
                  slots[k * static_cast<std::size_t>(inFlight) + slotOf(t)], isa::Space::Hbm,
                  x.address + x.hbmBytes(static_cast<std::uint64_t>(t * tileBytes)),
                  x.hbmBytes(static_cast<std::uint64_t>(tileSpan(t))), 1, 0, 0,
                  {LoopOffset::None, loopOffset(x, looped)}, x.widening());
        }
    };
    // The tile loop, a region of level loop named after its op: the timeline's deepest row shows it.
    const auto kind = opName(op.kind).substr(opName(op.kind).find('.') + 1);
    const std::string loop =
        std::string(kind) + (op.resultName.empty() ? "" : " " + op.resultName) + " tiles";
    if (tiles > 1) {
        w.declareRegion(loop, "loop");
        w.regionBegin(loop);
    }
    // A view's rows move with the tiles in a loop through the third offset: by this many bytes a tile (one
    // amount for every view), else the kernel is not looped.
    std::int64_t viewAdvance = 0;
    bool viewsLoop = true;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (feed(i) != Feed::RowSlice && feed(i) != Feed::RowValue)
            continue;
        const std::int64_t advance = tileGroups * 8 * feeds.steps[i] * (feed(i) == Feed::RowValue ? 512 : 4);
        if (advance == 0)
            continue;
        viewsLoop = viewsLoop && feeds.whole[i] && (viewAdvance == 0 || viewAdvance == advance);
        viewAdvance = advance;
    }
    const auto load = [&](std::size_t i, std::int64_t t, std::int64_t row, std::int64_t column, bool looped,
                          int reg) {
        const std::int64_t width = feeds.rows->width;
        std::uint64_t address = 0;
        std::int64_t stride = 0;
        if (feed(i) == Feed::Streamed) {
            const std::size_t k =
                static_cast<std::size_t>(std::find(streamed.begin(), streamed.end(), i) - streamed.begin());
            address = slots[k * static_cast<std::size_t>(inFlight) + slotOf(t)] +
                      static_cast<std::uint64_t>(((row - t * tileGroups * 8) * width + column) * 4);
            stride = width * 4;
        } else {
            const bool value = feed(i) == Feed::RowValue;
            const std::int64_t first = viewRowOffset(in[i], row);
            address =
                feeds.copies[i] + static_cast<std::uint64_t>(value ? first * 512 : (first + column) * 4);
            stride = feeds.steps[i] * (value ? 512 : 4);
            looped = looped && feeds.steps[i] != 0; // views of one row for every tile stay put
        }
        const std::string at = looped && feed(i) != Feed::Streamed
                                   ? std::string(w.offset3()) + " + " + std::to_string(address)
                                   : std::to_string(address);
        w.bundle("vld.s " + v(reg) + ", [" + at + "], " + std::to_string(stride));
    };
    const auto computeTile = [&](std::int64_t t, bool looped) {
        // The tile inFlight - 1 ahead lands while this one computes; its slot held tile t - 1, already read.
        if (t + inFlight - 1 < tiles)
            fetch(t + inFlight - 1, looped);
        w.waitAll(inputs[slotOf(t)]);
        if (t >= inFlight)
            w.waitAll(streams[slotOf(t)]); // the write-back of tile t - inFlight has left this slot
        const std::size_t slot = slotOf(t);
        const std::int64_t count = (tileSpan(t) + kVregBytes - 1) / kVregBytes;
        if (feeds.rows) { // groups of 8 rows, 128 columns a register, the blocks of a group in turn
            const std::int64_t width = feeds.rows->width;
            const std::int64_t perRow = width / 128;
            const std::int64_t blocks = tileSpan(t) / groupBytes * perRow;
            for (std::int64_t b0 = 0; b0 < blocks; b0 += static_cast<std::int64_t>(sets.size())) {
                const auto n = static_cast<std::size_t>(
                    std::min<std::int64_t>(static_cast<std::int64_t>(sets.size()), blocks - b0));
                const auto groupOf = [&](std::size_t k) {
                    return (b0 + static_cast<std::int64_t>(k)) / perRow;
                };
                const auto columnOf = [&](std::size_t k) {
                    return (b0 + static_cast<std::int64_t>(k)) % perRow * 128;
                };
                for (std::size_t k = 0; k < n; ++k)
                    for (std::size_t i = 0; i < in.size(); ++i)
                        if (perBlock(i))
                            load(i, t, (t * tileGroups + groupOf(k)) * 8, columnOf(k), looped,
                                 sets[k].inputs[i]);
                for (const auto& instruction : groupCode[n])
                    w.bundle(instruction);
                for (std::size_t k = 0; k < n; ++k) {
                    const std::int64_t g = groupOf(k), c = columnOf(k);
                    const int result = sets[k].result;
                    for (std::size_t o = 0; o < outputs.size(); ++o)
                        w.bundle("vst.s " + v(sets[k].steps[outputs[o].step]) + ", [" +
                                 std::to_string(writtenSlot(o, slot) +
                                                static_cast<std::uint64_t>((g * 8 * width + c) * 4)) +
                                 "], " + std::to_string(width * 4));
                    if (!reduction) {
                        w.bundle("vst.s " + v(result) + ", [" +
                                 std::to_string(outSlots[slot] +
                                                static_cast<std::uint64_t>((g * 8 * width + c) * 4)) +
                                 "], " + std::to_string(width * 4));
                        continue;
                    }
                    for (std::size_t r = 0; r < reductions.size(); ++r) {
                        const int operand = reductions[r].operand;
                        const int summed = reductions.size() == 1 ? result
                                           : operand >= 0 ? sets[k].inputs[static_cast<std::size_t>(operand)]
                                                          : sets[k].steps[static_cast<std::size_t>(~operand)];
                        const bool maximum = reductions[r].kind == OpKind::Maximum;
                        w.bundle(c == 0 ? "vmov " + v(sums[r]) + ", " + v(summed)
                                        : (maximum ? "vmax.f32 " : "vadd.f32 ") + v(sums[r]) + ", " +
                                              v(sums[r]) + ", " + v(summed));
                        if (maximum) { // (v3, set 0's scratch, is free once every set's code has run)
                            w.bundle("vcmp.eq.f32 v3, " + v(summed) + ", " + v(summed));
                            w.bundle("vsel " + v(witness[r]) + ", v3, " +
                                     v(c == 0 ? initialWitness[r] : witness[r]) + ", " + v(summed));
                        }
                    }
                    for (std::size_t r = 0; r < reductions.size() && c + 128 == width; ++r) {
                        // each row's sum in every lane of its row, the initial value last
                        if (reductions[r].kind == OpKind::Maximum) {
                            w.bundle("xlu.rmax.f32 " + v(kResult) + ", " + v(sums[r]));
                            w.bundle("vmax.f32 " + v(kResult) + ", " + v(initial[r]) + ", " + v(kResult));
                            w.bundle("xlu.rsum.f32 v3, " + v(witness[r]));
                            w.bundle("vadd.f32 " + v(kResult) + ", " + v(kResult) + ", v3");
                        } else {
                            w.bundle("xlu.rsum.f32 " + v(kResult) + ", " + v(sums[r]));
                            w.bundle("vadd.f32 " + v(kResult) + ", " + v(initial[r]) + ", " + v(kResult));
                        }
                        w.bundle("vst " + v(kResult) + ", [" +
                                 std::to_string(outSlots[r * static_cast<std::size_t>(inFlight) + slot] +
                                                static_cast<std::uint64_t>(g * kVregBytes)) +
                                 "]");
                    }
                }
            }
        } else {
            const auto loadFlat = [&](std::int64_t r, const std::vector<int>& registers) {
                for (std::size_t k = 0; k < streamed.size(); ++k)
                    w.bundle("vld " + v(registers[streamed[k]]) + ", [" +
                             std::to_string(slots[k * static_cast<std::size_t>(inFlight) + slot] +
                                            static_cast<std::uint64_t>(r * kVregBytes)) +
                             "]");
            };
            const auto storeFlat = [&](std::int64_t r, int result) {
                w.bundle("vst " + v(result) + ", [" +
                         std::to_string(outSlots[slot] + static_cast<std::uint64_t>(r * kVregBytes)) + "]");
            };
            for (std::int64_t r0 = 0; r0 < count; r0 += static_cast<std::int64_t>(sets.size())) {
                const auto n = static_cast<std::size_t>(
                    std::min<std::int64_t>(static_cast<std::int64_t>(sets.size()), count - r0));
                for (std::size_t k = 0; k < n; ++k)
                    loadFlat(r0 + static_cast<std::int64_t>(k), sets[k].inputs);
                for (const auto& instruction : groupCode[n])
                    w.bundle(instruction);
                for (std::size_t k = 0; k < n; ++k) {
                    const auto r = r0 + static_cast<std::int64_t>(k);
                    storeFlat(r, sets[k].result);
                    for (std::size_t o = 0; o < outputs.size(); ++o)
                        w.bundle("vst " + v(sets[k].steps[outputs[o].step]) + ", [" +
                                 std::to_string(writtenSlot(o, slot) +
                                                static_cast<std::uint64_t>(r * kVregBytes)) +
                                 "]");
                }
            }
        }
        for (std::size_t r = 0; r < reductions.size(); ++r) { // lane 0 of each row of the sums
            const TensorRef& sumsOut = reductions[r].out;
            DmaAddressing at;
            at.dstRegister = looped ? w.offset3() : nullptr;
            w.dma(streams[slot], isa::Space::Hbm,
                  sumsOut.address + static_cast<std::uint64_t>(t * tileGroups * 8 * sumsOut.elementBytes),
                  isa::Space::Vmem, outSlots[r * static_cast<std::size_t>(inFlight) + slot], 4,
                  static_cast<std::uint64_t>(tileSpan(t) / groupBytes * 8), 512,
                  static_cast<std::uint64_t>(sumsOut.elementBytes), at, sumsOut.narrowing());
        }
        for (std::size_t o = 0; o < outputs.size(); ++o) {
            const TensorRef& written = outputs[o].out;
            w.dma(streams[slot], isa::Space::Hbm,
                  written.address + written.hbmBytes(static_cast<std::uint64_t>(t * tileBytes)),
                  isa::Space::Vmem, writtenSlot(o, slot), static_cast<std::uint64_t>(tileSpan(t)), 1, 0, 0,
                  {loopOffset(written, looped), LoopOffset::None}, written.narrowing());
        }
        if (reduction)
            return;
        w.dma(streams[slot], isa::Space::Hbm,
              out.address + out.hbmBytes(static_cast<std::uint64_t>(t * tileBytes)), isa::Space::Vmem,
              outSlots[slot], static_cast<std::uint64_t>(tileSpan(t)), 1, 0, 0,
              {loopOffset(out, looped), LoopOffset::None}, out.narrowing());
    };
    // In loop mode the steady state is a counted loop of inFlight tiles an iteration (the slots turn once):
    // tiles from inFlight (each waits for its slot's write-back) while the tile fetched ahead is full.
    // A reduction's sums leave through the third offset too: it loops only if no view needs it.
    const std::int64_t sumsAdvance = reduction ? tileGroups * 8 * out.elementBytes : 0;
    viewsLoop = viewsLoop && (!reduction || viewAdvance == 0);
    const std::int64_t thirdStep = inFlight * (reduction ? sumsAdvance : viewAdvance);
    std::int64_t loopFirst = tiles, loopIterations = 0;
    if (w.loops() && viewsLoop) {
        const std::int64_t lastSteady =
            bytes / tileBytes - inFlight; // fetches full tile lastSteady + inFlight - 1
        if (lastSteady >= inFlight)
            loopIterations = (lastSteady - inFlight + 1) / inFlight;
        if (loopIterations >= 2 && ProgramWriter::loopFits(loopIterations, thirdStep))
            loopFirst = inFlight;
    }
    for (std::int64_t t = 0; t + 1 < inFlight; ++t)
        fetch(t, false);
    for (std::int64_t t = 0; t < tiles; ++t) {
        if (t != loopFirst) {
            computeTile(t, false);
            continue;
        }
        const bool anyPacked =
            (!reduction && out.packed()) ||
            std::any_of(outputs.begin(), outputs.end(),
                        [](const ElementwiseKernel::Output& o) { return o.out.packed(); }) ||
            std::any_of(streamed.begin(), streamed.end(), [&](std::size_t k) { return in[k].packed(); });
        w.beginLoop(loopIterations, inFlight * tileBytes, anyPacked ? inFlight * tileBytes / 2 : 0, {},
                    thirdStep);
        for (std::int64_t u = 0; u < inFlight; ++u)
            computeTile(t + u, true);
        w.endLoop();
        t += loopIterations * inFlight - 1;
    }
    for (const DmaStream& s : streams)
        w.waitAll(s);
    if (tiles > 1)
        w.regionEnd();
}

void lowerElementwise(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                      const TensorRef& out)
{
    ElementwiseKernel kernel;
    ElementwiseStep step{&op, {}, in.at(0).type.element};
    for (const TensorRef& x : in) {
        // An operand given twice (x * x) is read once.
        const auto same = std::find_if(kernel.inputs.begin(), kernel.inputs.end(), [&](const TensorRef& y) {
            return y.address == x.address && y.type == x.type && y.elementBytes == x.elementBytes &&
                   y.scalarConstant == x.scalarConstant && y.splat == x.splat &&
                   y.broadcastStrides == x.broadcastStrides;
        });
        step.operands.push_back(static_cast<int>(same - kernel.inputs.begin()));
        if (same == kernel.inputs.end())
            kernel.inputs.push_back(x);
    }
    kernel.steps.push_back(std::move(step));
    lowerElementwise(w, kernel, out);
}

void lowerSplat(ProgramWriter& w, const TensorRef& scalar, const TensorRef& out)
{
    broadcastScalar(w, scalar, 0);
    const std::int64_t bytes = out.type.elementCount() * 4;
    const std::int64_t vregs = std::max<std::int64_t>((bytes + kVregBytes - 1) / kVregBytes, 1);
    const std::int64_t tileVregs = std::min<std::int64_t>(vregs, kTileVregs);
    const auto tile = w.vmem(static_cast<std::uint64_t>(tileVregs * kVregBytes), "a splat tile");
    for (std::int64_t r = 0; r < tileVregs; ++r)
        w.bundle("vst v0, [" + std::to_string(tile + static_cast<std::uint64_t>(r * kVregBytes)) + "]");
    auto s = w.stream();
    for (std::int64_t offset = 0; offset < bytes; offset += tileVregs * kVregBytes)
        w.dma(s, isa::Space::Hbm, out.address + out.hbmBytes(static_cast<std::uint64_t>(offset)),
              isa::Space::Vmem, tile,
              static_cast<std::uint64_t>(std::min(tileVregs * kVregBytes, bytes - offset)), 1, 0, 0, {},
              out.narrowing());
    w.waitAll(s);
}

} // namespace xps::shlo::lower
