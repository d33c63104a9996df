#include "calibrate/csv_fields.h"

#include <charconv>
#include <cmath>

namespace xps::calibrate::csv {

namespace {

std::optional<double> readNumber(std::string_view text)
{
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

} // namespace

std::vector<Field> splitFields(std::string_view line)
{
    std::vector<Field> fields;
    std::size_t start = 0;
    while (true) {
        std::size_t i = start;
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        Field f;
        std::size_t end = 0;
        if (i < line.size() && line[i] == '"') {
            // A quoted field runs to the next quote ("" inside is left as it is: no reader needs it).
            const std::size_t close = line.find('"', i + 1);
            const std::size_t last = close == std::string_view::npos ? line.size() : close;
            f.text = line.substr(i + 1, last - i - 1);
            f.column = i + 2;
            end = std::min(line.find(',', last), line.size());
        } else {
            end = std::min(line.find(',', start), line.size());
            f.text = line.substr(i, end - i);
            f.column = i + 1;
        }
        while (!f.text.empty() && (f.text.back() == ' ' || f.text.back() == '\t' || f.text.back() == '\r'))
            f.text.remove_suffix(1);
        fields.push_back(f);
        if (end >= line.size())
            return fields;
        start = end + 1;
    }
}

std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

std::string at(const std::string& file, std::size_t line, std::size_t column)
{
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string shown(std::string_view text)
{
    return text.empty() ? std::string("nothing") : "'" + std::string(text.substr(0, 40)) + "'";
}

std::optional<std::int64_t> readDimension(std::string_view text)
{
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || v < 1 || v > kMaxDimension)
        return std::nullopt;
    return v;
}

std::optional<Error> readTimes(const std::vector<Field>& fields, const Columns& columns,
                               const std::array<const char*, 4>& names, const std::string& fileName,
                               std::size_t lineNumber, Measurement& m)
{
    const std::array<double*, 4> into = {&m.averageUs, &m.minimumUs, &m.maximumUs, &m.stddevUs};
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!names[i])
            continue;
        const auto column = columns.find(names[i]);
        if (column == columns.end()) {
            if (i == 0)
                return Error(at(fileName, lineNumber, 1), std::string("no ") + names[i] + " column");
            continue;
        }
        const Field& f = fields[column->second];
        const bool positive = i == 0; // an average of 0 is no measurement
        const auto v = readNumber(f.text);
        if (!v || *v < 0.0 || (positive && *v == 0.0))
            return Error(at(fileName, lineNumber, f.column), "expected " + std::string(names[i]) + " as a " +
                                                                 (positive ? "positive" : "non-negative") +
                                                                 " number of microseconds, found " +
                                                                 shown(f.text));
        *into[i] = *v;
    }
    return std::nullopt;
}

} // namespace xps::calibrate::csv
