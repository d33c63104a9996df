#pragma once
// The one way xpushark turns a JSON document into text. Strings reach documents from files users and other
// tools wrote (an event name, a buffer name, a file name, an import warning quoting bad input), and any of
// them may hold invalid UTF-8: nlohmann's default dump throws on it (type_error 316), which aborted the CLI.
// Here each invalid byte becomes U+FFFD, so every JSON we write is valid UTF-8 and the rest is kept.

#include <nlohmann/json.hpp>

#include <string>

namespace xps::text {

// A template, not a nlohmann::json parameter: an ordered_json would silently convert (and sort its keys).
template <typename Json> std::string jsonText(const Json& document, int indent = -1)
{
    return document.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

} // namespace xps::text
