#include "stablehlo/lower_names.h"

#include <cctype>

namespace xps::shlo::lower {

std::string identifier(std::string_view text)
{
    std::string out;
    for (const char c : text)
        out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    return out.empty() ? std::string("t") : out;
}

std::string regionName(const Operation& op)
{
    const auto kind = std::string(opName(op.kind).substr(opName(op.kind).find('.') + 1));
    std::string name = op.location.name, place;
    if (const auto open = name.rfind(" (");
        open != std::string::npos && !name.empty() && name.back() == ')') {
        place = name.substr(open + 2, name.size() - open - 3);
        name.resize(open);
    } else if (name.find(':') != std::string::npos && name.find('/') == std::string::npos) {
        place = name; // "file.py:12"
        name.clear();
    }
    while (name.rfind("jit(", 0) == 0 && name.find(")/") != std::string::npos)
        name.erase(0, name.find(")/") + 2);
    std::string out = kind + (op.resultName.empty() ? "" : " " + op.resultName);
    if (!name.empty() && name != kind)
        out += " \u00b7 " + name;
    if (!place.empty())
        out += " \u00b7 " + place;
    return out;
}

} // namespace xps::shlo::lower
