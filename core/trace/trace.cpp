#include "trace/trace.h"

namespace xps::trace {

const Buffer* SymbolTable::findBuffer(std::string_view name) const
{
    for (const Buffer& b : buffers)
        if (b.name == name)
            return &b;
    return nullptr;
}

int SymbolTable::findRegion(std::string_view name) const
{
    for (std::size_t i = 0; i < regions.size(); ++i)
        if (regions[i].name == name)
            return static_cast<int>(i);
    return -1;
}

namespace {
constexpr std::pair<Generator::Kind, std::string_view> kGeneratorNames[] = {
    {Generator::Kind::Zero, "zero"},
    {Generator::Kind::ConstU32, "const_u32"},
    {Generator::Kind::ConstF32, "const_f32"},
    {Generator::Kind::RandomF32, "random_f32"},
    {Generator::Kind::RandomU32, "random_u32"},
    {Generator::Kind::IotaS32, "iota_s32"},
    {Generator::Kind::RandomF16, "random_f16"},
    {Generator::Kind::RandomBF16, "random_bf16"},
    {Generator::Kind::RandomS32, "random_s32"},
};
} // namespace

std::string_view generatorKindName(Generator::Kind kind)
{
    for (const auto& [k, name] : kGeneratorNames)
        if (k == kind)
            return name;
    return "?";
}

std::optional<Generator::Kind> generatorKindFromName(std::string_view name)
{
    for (const auto& [k, n] : kGeneratorNames)
        if (n == name)
            return k;
    return std::nullopt;
}

std::uint64_t Trace::snapshotBytes() const
{
    std::uint64_t total = 0;
    for (const ChipTrace& c : chips) {
        for (const MemoryInit& m : c.initial.memory)
            total += m.payload.isGenerator ? 0 : m.payload.bytes.size();
        for (const auto& [reg, p] : c.initial.vectorRegisters)
            total += p.isGenerator ? 0 : p.bytes.size();
    }
    return total;
}

} // namespace xps::trace
