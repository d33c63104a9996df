#include "stablehlo/attribute.h"

#include <charconv>

namespace xps::shlo {

const Attribute* Attribute::field(std::string_view name) const
{
    for (const auto& [key, value] : fields)
        if (key == name)
            return &value;
    return nullptr;
}

std::optional<std::vector<std::int64_t>> Attribute::integers() const
{
    std::vector<std::int64_t> out;
    if (kind == Kind::List) {
        for (const auto& item : items) {
            if (item.kind != Kind::Integer)
                return std::nullopt;
            out.push_back(item.integer);
        }
        return out;
    }
    if (kind == Kind::Dense && dense && dense->hexBlob.empty()) {
        for (const auto element : dense->elements) {
            std::int64_t v = 0;
            const auto [end, ec] = std::from_chars(element.data(), element.data() + element.size(), v);
            if (ec != std::errc() || end != element.data() + element.size())
                return std::nullopt;
            out.push_back(v);
        }
        // A splat of a shaped type stands for every element.
        std::int64_t count = 1;
        for (const auto d : denseShape)
            count = d >= 0 && count <= (1 << 16) ? count * d : (1 << 17);
        if (dense->isSplat() && count > 1 && count <= (1 << 16))
            out.assign(static_cast<std::size_t>(count), out.front());
        return out;
    }
    return std::nullopt;
}

const Attribute* AttributeMap::find(std::string_view name) const
{
    for (const auto& [key, value] : entries)
        if (key == name)
            return &value;
    return nullptr;
}

void AttributeMap::set(std::string name, Attribute value)
{
    for (auto& [key, existing] : entries)
        if (key == name) {
            existing = std::move(value);
            return;
        }
    entries.push_back({std::move(name), std::move(value)});
}

Attribute integerList(const std::vector<std::int64_t>& values)
{
    Attribute a;
    a.kind = Attribute::Kind::List;
    for (const auto v : values) {
        Attribute item;
        item.kind = Attribute::Kind::Integer;
        item.integer = v;
        a.items.push_back(item);
    }
    return a;
}

} // namespace xps::shlo
