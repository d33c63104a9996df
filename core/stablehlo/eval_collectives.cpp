#include "stablehlo/eval_collectives.h"

#include <algorithm>

namespace xps::shlo::detail {

std::vector<std::shared_ptr<const TensorValue>>
Rendezvous::exchange(std::uint64_t sequence, int process, std::shared_ptr<const TensorValue> operand)
{
    std::unique_lock lock(m_mutex);
    auto& meeting = m_meetings[sequence];
    if (meeting.operands.empty())
        meeting.operands.resize(static_cast<std::size_t>(m_processes));
    meeting.operands[static_cast<std::size_t>(process)] = std::move(operand);
    ++meeting.arrived;
    m_changed.notify_all();
    m_changed.wait(lock, [&] { return m_aborted || meeting.arrived == m_processes; });
    if (m_aborted)
        evalFail("another process stopped before this collective");
    auto operands = meeting.operands;
    if (++meeting.left == m_processes)
        m_meetings.erase(sequence);
    return operands;
}

void Rendezvous::abort()
{
    std::lock_guard lock(m_mutex);
    m_aborted = true;
    m_changed.notify_all();
}

std::vector<std::vector<std::int64_t>> processGroups(const Operation& op, int processes)
{
    const auto* groups = op.attributes.find("replica_groups");
    std::vector<std::vector<std::int64_t>> out;
    if (groups) {
        const auto ids = groups->integers();
        if (!ids)
            evalFail("replica_groups must be a dense integer literal");
        const std::int64_t width =
            groups->denseShape.size() == 2 ? groups->denseShape[1] : static_cast<std::int64_t>(ids->size());
        for (std::size_t i = 0; width > 0 && i < ids->size(); i += static_cast<std::size_t>(width))
            out.emplace_back(ids->begin() + static_cast<std::ptrdiff_t>(i),
                             ids->begin() + static_cast<std::ptrdiff_t>(
                                                std::min(ids->size(), i + static_cast<std::size_t>(width))));
    }
    if (out.empty() || (out.size() == 1 && out[0].empty())) {
        out.assign(1, {});
        for (int p = 0; p < processes; ++p)
            out[0].push_back(p);
    }
    std::vector<bool> seen(static_cast<std::size_t>(processes));
    for (const auto& g : out)
        for (const auto id : g) {
            if (id < 0 || id >= processes || seen[static_cast<std::size_t>(id)])
                evalFail("replica_groups must name each of the " + std::to_string(processes) +
                         " processes at most once");
            seen[static_cast<std::size_t>(id)] = true;
        }
    return out;
}

namespace {

const std::vector<std::int64_t>& groupOf(const std::vector<std::vector<std::int64_t>>& groups, int process,
                                         std::size_t& rank)
{
    for (const auto& g : groups)
        for (std::size_t r = 0; r < g.size(); ++r)
            if (g[r] == process) {
                rank = r;
                return g;
            }
    evalFail("process " + std::to_string(process) + " is in no replica group");
}

// Element-wise reduction of the group's operands in the group's order, with the op's reducer region.
TensorValue reduceGroup(const Operation& op, const std::vector<std::int64_t>& group,
                        const std::vector<std::shared_ptr<const TensorValue>>& operands, RegionRunner& runner,
                        WorkMeter& meter)
{
    if (op.regions.size() != 1)
        evalFail("expected a reducer region");
    TensorValue acc = *operands[static_cast<std::size_t>(group[0])];
    std::vector<double> args(2), result(1);
    for (std::size_t k = 1; k < group.size(); ++k) {
        const auto& x = *operands[static_cast<std::size_t>(group[k])];
        if (x.type != acc.type)
            evalFail("the processes' operands differ in type");
        meter.charge(x.data.size());
        for (std::size_t i = 0; i < x.data.size(); ++i) {
            args[0] = acc.data[i];
            args[1] = x.data[i];
            runner.apply(op.regions[0], args, result);
            acc.data[i] = result[0];
        }
    }
    return acc;
}

// A row-major shape seen as [outer, size, inner] around one dimension.
struct AroundDim
{
    std::int64_t outer = 1, size = 1, inner = 1;
};
AroundDim around(const std::vector<std::int64_t>& shape, std::size_t d)
{
    AroundDim a;
    for (std::size_t i = 0; i < d; ++i)
        a.outer *= shape[i];
    for (std::size_t i = d + 1; i < shape.size(); ++i)
        a.inner *= shape[i];
    a.size = shape[d];
    return a;
}

// The `index`-th of `count` equal blocks of `x` along `dim`.
TensorValue block(const TensorValue& x, std::int64_t dim, std::int64_t index, std::int64_t count)
{
    const auto d = static_cast<std::size_t>(dim);
    if (x.type.shape[d] % count != 0)
        evalFail("dimension " + std::to_string(dim) + " does not split into " + std::to_string(count) +
                 " blocks");
    TensorValue out{x.type, {}};
    out.type.shape[d] /= count;
    const auto a = around(x.type.shape, d);
    const auto size = out.type.shape[d];
    for (std::int64_t o = 0; o < a.outer; ++o)
        for (std::int64_t j = 0; j < size; ++j)
            for (std::int64_t i = 0; i < a.inner; ++i)
                out.data.push_back(
                    x.data[static_cast<std::size_t>((o * a.size + index * size + j) * a.inner + i)]);
    return out;
}

} // namespace

TensorValue evalCollective(const Operation& op, int process,
                           const std::vector<std::shared_ptr<const TensorValue>>& operands,
                           RegionRunner& runner, WorkMeter& meter)
{
    const auto& result = op.resultTypes.at(0);
    const int processes = static_cast<int>(operands.size());
    if (op.kind == OpKind::CollectivePermute) {
        const auto* pairs = op.attributes.find("source_target_pairs");
        const auto ids = pairs ? pairs->integers() : std::nullopt;
        if (!ids || ids->size() % 2 != 0)
            evalFail("source_target_pairs must be a dense list of [source, target] pairs");
        TensorValue out{result, std::vector<double>(static_cast<std::size_t>(result.elementCount()), 0.0)};
        for (std::size_t i = 0; i < ids->size(); i += 2) {
            const auto source = (*ids)[i], target = (*ids)[i + 1];
            if (source < 0 || source >= processes || target < 0 || target >= processes)
                evalFail("source_target_pairs names a process that does not exist");
            if (target == process)
                out.data = operands[static_cast<std::size_t>(source)]->data;
        }
        return out;
    }
    std::size_t rank = 0;
    const auto groups = processGroups(op, processes);
    const auto& group = groupOf(groups, process, rank);
    const auto count = static_cast<std::int64_t>(group.size());
    switch (op.kind) {
    case OpKind::AllReduce: return reduceGroup(op, group, operands, runner, meter);
    case OpKind::ReduceScatter: {
        const auto dim = intAttr(op, "scatter_dimension", 0, true);
        const auto reduced = reduceGroup(op, group, operands, runner, meter);
        return block(reduced, dim, static_cast<std::int64_t>(rank), count);
    }
    case OpKind::AllGather: {
        const auto dim = intAttr(op, "all_gather_dim", 0, true);
        const auto& x = *operands[static_cast<std::size_t>(group[0])];
        if (dim < 0 || dim >= x.type.rank())
            evalFail("all_gather_dim is not a dimension of the operand");
        // The result, cut into the group's blocks along dim, holds each member's operand in group order.
        TensorValue out{result, std::vector<double>(static_cast<std::size_t>(result.elementCount()))};
        const auto d = static_cast<std::size_t>(dim);
        const auto [outer, size, inner] = around(x.type.shape, d);
        if (result.shape[d] != size * count)
            evalFail("the result's gather dimension must be the operand's times the group size");
        for (std::int64_t k = 0; k < count; ++k) {
            const auto& member = *operands[static_cast<std::size_t>(group[static_cast<std::size_t>(k)])];
            for (std::int64_t o = 0; o < outer; ++o)
                for (std::int64_t j = 0; j < size; ++j)
                    for (std::int64_t i = 0; i < inner; ++i)
                        out.data[static_cast<std::size_t>((o * size * count + k * size + j) * inner + i)] =
                            member.data[static_cast<std::size_t>((o * size + j) * inner + i)];
        }
        return out;
    }
    default: evalFail("not a collective");
    }
}

} // namespace xps::shlo::detail
