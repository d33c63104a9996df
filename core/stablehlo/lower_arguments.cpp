#include "stablehlo/lower_arguments.h"

#include <algorithm>
#include <cmath>

namespace xps::shlo::lower {

namespace {

// Whether every use of value `v` of `body` is an operand of a dot (and it has one) whose operands as stored
// and result in f32 fit `vmemBytes` beside a copy of `kept` bytes.
bool onlyDotsRead(const Body& body, std::uint32_t v, std::uint64_t kept, std::uint64_t vmemBytes)
{
    const auto bytesOf = [&](std::uint32_t value, int elementBytes) {
        const TensorType& t = body.valueTypes[value];
        return static_cast<std::uint64_t>(t.elementCount()) * static_cast<std::uint64_t>(elementBytes);
    };
    bool read = false;
    for (const Operation& op : body.operations) {
        if (std::find(op.operands.begin(), op.operands.end(), v) == op.operands.end())
            continue;
        // XLA's open-source rule takes a dot's weights only, not its lhs; but on TPU v4 a dot whose large
        // operand is its lhs runs faster than HBM could bring it (834 x 2 x 4,756: 3.4 us measured, its
        // lhs alone 6.6 us at 1,200 GB/s), so the chip's compiler keeps it on chip too: either side
        // counts here (docs/stablehlo.md, "Cross-program prefetch").
        if (op.kind != OpKind::DotGeneral && op.kind != OpKind::Dot)
            return false;
        std::uint64_t workingSet = kept + bytesOf(op.firstResult, 4);
        for (const std::uint32_t operand : op.operands)
            workingSet += bytesOf(operand, storageBytes(body.valueTypes[operand].element));
        if (workingSet > vmemBytes)
            return false;
        read = true;
    }
    return read;
}

} // namespace

std::optional<std::size_t> crossProgramPrefetch(const Function& entry, const isa::MachineConfig& machine,
                                                const std::vector<std::uint64_t>& bytes)
{
    const auto limit =
        static_cast<std::uint64_t>(std::max<std::int64_t>(machine.crossProgramPrefetchBytes, 0));
    const auto vmem = static_cast<std::uint64_t>(std::max<std::int64_t>(machine.vmemBytes, 0));
    std::optional<std::size_t> best;
    std::uint64_t bestBytes = 0;
    for (std::size_t i = 0; i < entry.body.argumentTypes.size() && i < bytes.size(); ++i) {
        const std::uint64_t b = bytes[i];
        if (b == 0 || b > limit || b <= bestBytes ||
            !onlyDotsRead(entry.body, static_cast<std::uint32_t>(i), b, vmem))
            continue;
        best = i;
        bestBytes = b;
    }
    return best;
}

trace::MemoryInit argumentInput(const Function& f, std::size_t i, const TensorRef& t, int chip)
{
    trace::MemoryInit init;
    init.space = isa::Space::Hbm;
    init.address = t.address;
    init.size = static_cast<std::uint64_t>(t.type.elementCount() * t.elementBytes);
    init.payload.isGenerator = true;
    init.payload.generator.kind = t.type.element == ElementType::F16    ? trace::Generator::Kind::RandomF16
                                  : t.type.element == ElementType::BF16 ? trace::Generator::Kind::RandomBF16
                                  : isFloat(t.type.element)             ? trace::Generator::Kind::RandomF32
                                                                        : trace::Generator::Kind::RandomU32;
    // Each chip holds its own shard of an argument; a replicated one (mhlo.sharding = "{replicated}") is
    // the same on every chip.
    const auto* sharding =
        i < f.argumentAttributes.size() ? f.argumentAttributes[i].find("mhlo.sharding") : nullptr;
    const bool replicated =
        sharding && sharding->kind == Attribute::Kind::String && sharding->text == "{replicated}";
    init.payload.generator.seed = i + 1 + (replicated ? 0 : 1000 * static_cast<std::uint64_t>(chip));
    // Uniform with variance 1 / fan-in for a matrix (its second-to-last dimension), as a weight is
    // initialised, so activations stay near 1 through a model; [-1, 1) for vectors and scalars.
    const double fanIn =
        t.type.rank() >= 2 ? static_cast<double>(t.type.shape[t.type.shape.size() - 2]) : 3.0;
    const double bound = std::sqrt(3.0 / std::max(fanIn, 1.0));
    init.payload.generator.a = -bound;
    init.payload.generator.b = bound;
    if (!isFloat(t.type.element) && t.type.element != ElementType::I32) { // i1 as 0 or 1
        const auto [lo, hi] = integerArgumentRange(f.body, static_cast<std::uint32_t>(i));
        init.payload.generator.kind = trace::Generator::Kind::RandomS32;
        init.payload.generator.a = static_cast<double>(lo);
        init.payload.generator.b = static_cast<double>(hi);
    }
    return init;
}

} // namespace xps::shlo::lower
