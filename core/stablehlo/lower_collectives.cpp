// Collectives over ICI. Every chip runs its own copy of the program (the lowering writes one per chip, so
// group members, ranks and expected arrivals are constants in each). A chip sends its operand (or, for
// reduce_scatter, each member's block of it) straight into every group member's receive buffer, at its own
// rank's slot, on DMA engine 0 so its sends land in order, and waits until every member's slot has landed
// on its flag; all_reduce and reduce_scatter then combine the slots in the group's order on the vector
// unit (the reference interpreter's order, so results match it bit for bit), all_gather concatenates them.
// collective_permute writes each source's operand into its target's result buffer. Packed (f16/bf16) tensors
// travel packed (half the ICI bytes), and a combination rounds to their type at every step, as the
// interpreter's reducer does.

#include "stablehlo/eval_collectives.h"
#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

OpKind combinerOf(const Operation& op)
{
    if (op.regions.size() != 1)
        lowerFail("expected a reducer region");
    const auto& ops = op.regions[0].operations;
    if (ops.size() != 2 || elementwiseArity(ops[0].kind) != 2 || ops[0].operands.size() != 2 ||
        ops[0].operands[0] > 1 || ops[0].operands[1] > 1 || ops[1].operands.size() != 1 ||
        ops[1].operands[0] != 2)
        lowerFail("collectives have a lowering for a reducer of one element-wise op");
    return ops[0].kind;
}

// out = slot 0 op slot 1 op ... in order, through temporaries in HBM of out's element type.
void combine(ProgramWriter& w, OpKind kind, const std::vector<TensorRef>& slots, const TensorRef& out)
{
    Operation op;
    op.kind = kind;
    op.resultTypes = {out.type};
    TensorRef acc = slots[0];
    for (std::size_t k = 1; k < slots.size(); ++k) {
        TensorRef next = out;
        if (k + 1 < slots.size())
            next.address = w.hbmBuffer("collective_partial",
                                       static_cast<std::uint64_t>(out.type.elementCount() * out.elementBytes),
                                       out.bufferDtype(), out.type.shape);
        w.beginKernel();
        lowerElementwise(w, op, {acc, slots[k]}, next);
        acc = next;
    }
}

} // namespace

void lowerCollective(ProgramWriter& w, const Operation& op, const TensorRef& x, const TensorRef& out,
                     const ChipContext& chip)
{
    const auto bytes = static_cast<std::uint64_t>(x.type.elementCount() * x.elementBytes);
    auto flag = w.collectiveStream();
    if (op.kind == OpKind::CollectivePermute) {
        const auto* pairs = op.attributes.find("source_target_pairs");
        const auto ids = pairs ? pairs->integers() : std::nullopt;
        if (!ids || ids->size() % 2 != 0)
            lowerFail("source_target_pairs must be a dense list of [source, target] pairs");
        std::uint64_t arrivals = 0;
        for (std::size_t i = 0; i < ids->size(); i += 2) {
            const auto source = (*ids)[i], target = (*ids)[i + 1];
            if (source < 0 || source >= chip.chips || target < 0 || target >= chip.chips)
                lowerFail("source_target_pairs names a chip that does not exist");
            if (source == chip.chip)
                w.dmaToChip(flag, static_cast<int>(target), out.address, x.address, bytes);
            if (target == chip.chip)
                arrivals += chunksOf(bytes);
        }
        w.expectArrivals(flag, arrivals);
        w.waitAll(flag);
        return;
    }
    const auto groups = detail::processGroups(op, chip.chips);
    std::vector<std::int64_t> group;
    std::size_t rank = 0;
    for (const auto& g : groups)
        for (std::size_t r = 0; r < g.size(); ++r)
            if (g[r] == chip.chip) {
                group = g;
                rank = r;
            }
    if (group.empty())
        lowerFail("chip " + std::to_string(chip.chip) + " is in no replica group");
    const auto G = group.size();
    const bool scatter = op.kind == OpKind::ReduceScatter;
    if (scatter && op.attributes.find("scatter_dimension") &&
        op.attributes.find("scatter_dimension")->integer != 0)
        lowerFail("reduce_scatter along a dimension other than the first has no lowering yet");
    const auto slotBytes = scatter ? bytes / G : bytes;
    const auto receive = w.hbmBuffer("collective_receive", slotBytes * G, x.bufferDtype(), {});
    for (std::size_t k = 0; k < G; ++k) {
        const auto src = x.address + (scatter ? k * slotBytes : 0); // reduce_scatter: member k's block
        const auto dst = receive + rank * slotBytes;
        if (static_cast<int>(group[k]) == chip.chip)
            w.dma(flag, isa::Space::Hbm, dst, isa::Space::Hbm, src, slotBytes);
        else
            w.dmaToChip(flag, static_cast<int>(group[k]), dst, src, slotBytes);
    }
    w.expectArrivals(flag, (G - 1) * chunksOf(slotBytes));
    w.waitAll(flag);
    std::vector<TensorRef> slots;
    TensorType slotType = scatter ? out.type : x.type;
    for (std::size_t k = 0; k < G; ++k)
        slots.push_back({receive + k * slotBytes, slotType, {}, x.elementBytes});
    if (op.kind == OpKind::AllGather) {
        Operation concat;
        concat.kind = OpKind::Concatenate;
        concat.resultTypes = {out.type};
        Attribute dimension;
        dimension.kind = Attribute::Kind::Integer;
        dimension.integer =
            op.attributes.find("all_gather_dim") ? op.attributes.find("all_gather_dim")->integer : 0;
        concat.attributes.set("dimension", dimension);
        w.beginKernel();
        lowerMovement(w, concat, slots, out);
        return;
    }
    const auto kind = combinerOf(op);
    if (G == 1) { // a group of one: the result is the operand
        auto s = w.stream();
        w.dma(s, isa::Space::Hbm, out.address, isa::Space::Hbm, slots[0].address, slotBytes);
        w.waitAll(s);
        return;
    }
    combine(w, kind, slots, out);
}

} // namespace xps::shlo::lower
