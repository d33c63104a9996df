#include "trace/json_cursor.h"

#include "util/text.h"

#include <cmath>
#include <vector>

namespace xps::trace {

std::string_view jsonTypeName(const nlohmann::json& value)
{
    switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "an integer";
    case nlohmann::json::value_t::number_float: return "a fractional number";
    default: return "an unsupported value";
    }
}

void JsonCursor::fail(std::string message) const
{
    throw JsonError{m_path, std::move(message)};
}

void JsonCursor::expectObject(std::initializer_list<std::string_view> keys) const
{
    if (!m_value->is_object())
        fail("expected an object, found " + std::string(jsonTypeName(*m_value)));
    for (const auto& [key, v] : m_value->items()) {
        bool known = false;
        for (std::string_view k : keys)
            known = known || k == key;
        if (known)
            continue;
        std::string message = "unknown key '" + key + "'";
        const std::vector<std::string_view> candidates(keys);
        if (std::string guess = text::nearest(key, candidates); !guess.empty())
            message += "; did you mean '" + guess + "'?";
        JsonCursor(v, m_path + "." + key).fail(message);
    }
}

JsonCursor JsonCursor::at(std::string_view key) const
{
    if (!m_value->is_object())
        fail("expected an object, found " + std::string(jsonTypeName(*m_value)));
    const auto it = m_value->find(key);
    if (it == m_value->end())
        fail("missing required key '" + std::string(key) + "'");
    return JsonCursor(*it, m_path + "." + std::string(key));
}

std::optional<JsonCursor> JsonCursor::find(std::string_view key) const
{
    const auto it = m_value->find(key);
    if (it == m_value->end())
        return std::nullopt;
    return JsonCursor(*it, m_path + "." + std::string(key));
}

std::vector<std::pair<std::string, JsonCursor>> JsonCursor::members(std::size_t maximum,
                                                                    std::string_view what) const
{
    if (!m_value->is_object())
        fail("expected an object of " + std::string(what) + ", found " + std::string(jsonTypeName(*m_value)));
    if (m_value->size() > maximum)
        fail("has " + std::to_string(m_value->size()) + " " + std::string(what) + "; at most " +
             std::to_string(maximum) + " are allowed");
    std::vector<std::pair<std::string, JsonCursor>> out;
    for (const auto& [key, v] : m_value->items())
        out.emplace_back(key, JsonCursor(v, m_path + "." + key));
    return out;
}

std::size_t JsonCursor::arraySize(std::size_t maximum, std::string_view what) const
{
    if (!m_value->is_array())
        fail("expected an array of " + std::string(what) + ", found " + std::string(jsonTypeName(*m_value)));
    if (m_value->size() > maximum)
        fail("has " + std::to_string(m_value->size()) + " " + std::string(what) + "; at most " +
             std::to_string(maximum) + " are allowed");
    return m_value->size();
}

JsonCursor JsonCursor::operator[](std::size_t index) const
{
    return JsonCursor((*m_value)[index], m_path + "[" + std::to_string(index) + "]");
}

std::uint64_t JsonCursor::u64(std::uint64_t maximum) const
{
    if (m_value->is_number_unsigned() ||
        (m_value->is_number_integer() && m_value->get<std::int64_t>() >= 0)) {
        const std::uint64_t v = m_value->get<std::uint64_t>();
        if (v > maximum)
            fail("value " + std::to_string(v) + " is too large: at most " + std::to_string(maximum));
        return v;
    }
    if (m_value->is_number_integer())
        fail("expected a non-negative integer, found " + std::to_string(m_value->get<std::int64_t>()));
    fail("expected a non-negative integer, found " + std::string(jsonTypeName(*m_value)));
}

std::int64_t JsonCursor::i64(std::int64_t minimum, std::int64_t maximum) const
{
    if (!m_value->is_number_integer())
        fail("expected an integer, found " + std::string(jsonTypeName(*m_value)));
    if (m_value->is_number_unsigned() &&
        m_value->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
        fail("value is too large");
    const std::int64_t v = m_value->get<std::int64_t>();
    if (v < minimum || v > maximum)
        fail("value " + std::to_string(v) + " out of range: expected " + std::to_string(minimum) + " to " +
             std::to_string(maximum));
    return v;
}

double JsonCursor::real() const
{
    if (!m_value->is_number())
        fail("expected a number, found " + std::string(jsonTypeName(*m_value)));
    const double v = m_value->get<double>();
    if (!std::isfinite(v))
        fail("expected a finite number");
    return v;
}

const std::string& JsonCursor::str(std::size_t maxLength) const
{
    if (!m_value->is_string())
        fail("expected a string, found " + std::string(jsonTypeName(*m_value)));
    const std::string& s = m_value->get_ref<const std::string&>();
    if (s.size() > maxLength)
        fail("string of " + std::to_string(s.size()) + " characters is too long: at most " +
             std::to_string(maxLength));
    return s;
}

nlohmann::json parseJsonText(std::string_view text, std::string_view fileName, std::string& error,
                             int maxDepth, std::uint64_t maxValues)
{
    error.clear();
    struct TooDeep
    {
    };
    struct TooMany
    {
    };
    // nlohmann's plain DOM builder behind a handler that bounds what the document may cost: nesting (stack)
    // and the number of values, containers included (a DOM node is 16 bytes plus its payload, so a file of a
    // billion "0,"s or "[],"s would otherwise take tens of GiB). Not the callback parser: its end_object
    // scans the whole parent container after every object, quadratic in an array of objects.
    struct BoundedDom : nlohmann::detail::json_sax_dom_parser<nlohmann::json>
    {
        using Base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;
        int maxDepth;
        std::uint64_t maxValues;
        int depth = 0;
        std::uint64_t values = 0;
        BoundedDom(nlohmann::json& document, int maxDepth_, std::uint64_t maxValues_)
            : Base(document, /*allow_exceptions=*/true), maxDepth(maxDepth_), maxValues(maxValues_)
        {
        }
        void count()
        {
            if (++values > maxValues)
                throw TooMany{};
        }
        void open()
        {
            count();
            if (++depth > maxDepth)
                throw TooDeep{};
        }
        bool null() { return count(), Base::null(); }
        bool boolean(bool v) { return count(), Base::boolean(v); }
        bool number_integer(nlohmann::json::number_integer_t v) { return count(), Base::number_integer(v); }
        bool number_unsigned(nlohmann::json::number_unsigned_t v) { return count(), Base::number_unsigned(v); }
        bool number_float(nlohmann::json::number_float_t v, const std::string& s)
        {
            return count(), Base::number_float(v, s);
        }
        bool string(std::string& v) { return count(), Base::string(v); }
        bool binary(nlohmann::json::binary_t& v) { return count(), Base::binary(v); }
        bool start_object(std::size_t n) { return open(), Base::start_object(n); }
        bool end_object() { return --depth, Base::end_object(); }
        bool start_array(std::size_t n) { return open(), Base::start_array(n); }
        bool end_array() { return --depth, Base::end_array(); }
    };
    try {
        nlohmann::json root;
        BoundedDom sax(root, maxDepth, maxValues);
        nlohmann::json::sax_parse(text.begin(), text.end(), &sax, nlohmann::json::input_format_t::json,
                                  /*strict=*/true, /*ignore_comments=*/false);
        return root;
    } catch (const nlohmann::json::parse_error& e) {
        const text::LineColumn lc = text::lineColumnAt(text, e.byte == 0 ? 0 : e.byte - 1);
        std::string what = e.what();
        if (const std::size_t colon = what.find(": ", what.find("column")); colon != std::string::npos)
            what = what.substr(colon + 2);
        error = std::string(fileName) + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) +
                ": invalid JSON: " + what;
    } catch (const nlohmann::json::exception& e) {
        // Not a syntax error but still a bad document, e.g. "number overflow parsing '1E999'" (no byte
        // position is given: locate the quoted literal in the text).
        std::string what = e.what();
        if (const std::size_t bracket = what.find("] "); bracket != std::string::npos)
            what = what.substr(bracket + 2);
        std::string location(fileName);
        const std::size_t open = what.find('\''), close = what.rfind('\'');
        if (open != std::string::npos && close > open) {
            if (const std::size_t at = text.find(what.substr(open + 1, close - open - 1));
                at != std::string_view::npos) {
                const text::LineColumn lc = text::lineColumnAt(text, at);
                location += ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
            }
        }
        error = location + ": invalid JSON: " + what;
    } catch (const TooDeep&) {
        error = std::string(fileName) + ": JSON nested deeper than " + std::to_string(maxDepth) +
                " levels; a trace never needs that (hostile or corrupt file?)";
    } catch (const TooMany&) {
        error = std::string(fileName) + ": JSON has more than " + std::to_string(maxValues) +
                " values; store traces this large in the .xps container";
    }
    return {};
}

} // namespace xps::trace
