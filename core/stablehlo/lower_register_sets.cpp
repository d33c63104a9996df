#include "stablehlo/lower_register_sets.h"

#include <algorithm>
#include <array>

namespace xps::shlo::lower {

bool renameScratch(std::vector<std::string>& code, const std::function<std::optional<int>()>& take)
{
    static constexpr std::array<int, 6> kScratch = {3, 4, 5, 6, 30, 31};
    const auto isScratch = [](int r) {
        return std::find(kScratch.begin(), kScratch.end(), r) != kScratch.end();
    };
    // Each instruction's register operands: "v" and digits after a space, a comma or a bracket.
    const auto forEachRegister = [](std::string& text, const auto& visit) {
        for (std::size_t i = 0; i + 1 < text.size(); ++i) {
            if (text[i] != 'v' || (i > 0 && text[i - 1] != ' ' && text[i - 1] != ',' && text[i - 1] != '['))
                continue;
            std::size_t end = i + 1;
            while (end < text.size() && text[end] >= '0' && text[end] <= '9')
                ++end;
            if (end == i + 1 ||
                (end < text.size() && text[end] != ',' && text[end] != ' ' && text[end] != ']'))
                continue;
            const int r = std::stoi(text.substr(i + 1, end - i - 1));
            if (auto replacement = visit(r)) {
                const std::string name = "v" + std::to_string(*replacement);
                text.replace(i, end - i, name);
                end = i + name.size();
            }
            i = end - 1;
        }
    };
    std::vector<int> used;
    for (std::string& instruction : code)
        forEachRegister(instruction, [&](int r) -> std::optional<int> {
            if (isScratch(r) && std::find(used.begin(), used.end(), r) == used.end())
                used.push_back(r);
            return std::nullopt;
        });
    std::array<int, 32> renamed{};
    renamed.fill(-1);
    for (const int r : used) {
        const std::optional<int> free = take();
        if (!free)
            return false; // not enough: the sets share scratch registers
        renamed[static_cast<std::size_t>(r)] = *free;
    }
    for (std::string& instruction : code)
        forEachRegister(instruction, [&](int r) -> std::optional<int> {
            if (r < 32 && renamed[static_cast<std::size_t>(r)] >= 0)
                return renamed[static_cast<std::size_t>(r)];
            return std::nullopt;
        });
    return true;
}

} // namespace xps::shlo::lower
