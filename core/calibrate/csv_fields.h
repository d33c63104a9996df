#pragma once
// Reading measurement CSV files (internal to core/calibrate): fields with their columns, so that every error
// names file:line:column, and the checks every reader shares.

#include "calibrate/measurements.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xps::calibrate::csv {

inline constexpr std::size_t kMaxRows = 100000;

struct Field
{
    std::string_view text;  // without surrounding blanks and quotes
    std::size_t column = 1; // 1-based, of the field's first character
};

// The comma-separated fields of one line; a field in double quotes may hold commas ("relu_(8, 32)").
std::vector<Field> splitFields(std::string_view line);
// The lines of `text` (a trailing '\r' stays: splitFields drops it).
std::vector<std::string_view> splitLines(std::string_view text);

std::string at(const std::string& file, std::size_t line, std::size_t column);
// A field as an error message quotes it: 'text' (40 characters at most), or "nothing".
std::string shown(std::string_view text);
// A side of a shape: an integer in 1..kMaxDimension.
std::optional<std::int64_t> readDimension(std::string_view text);

// Each data row after the header (blank lines skipped) given to `row` with its fields and 1-based line
// number; `row` returns an error to stop. A row whose fields are not the header's, or one past 100,000, is
// an error at its line.
template <typename Row>
std::optional<Error> forEachRow(const std::vector<std::string_view>& lines, std::size_t headerLine,
                                std::size_t columns, const std::string& fileName, Row&& row)
{
    std::size_t count = 0;
    for (std::size_t l = headerLine + 1; l < lines.size(); ++l) {
        const std::vector<Field> fields = splitFields(lines[l]);
        if (fields.size() == 1 && fields[0].text.empty())
            continue; // a blank line
        const std::size_t lineNumber = l + 1;
        if (++count > kMaxRows)
            return Error(at(fileName, lineNumber, 1), "more than 100,000 measurements in one file");
        if (fields.size() != columns)
            return Error(at(fileName, lineNumber, 1), "expected " + std::to_string(columns) +
                                                          " fields as in the header, found " +
                                                          std::to_string(fields.size()));
        if (auto e = row(fields, lineNumber))
            return e;
    }
    return std::nullopt;
}

// The measurements of every data row: `row` appends its row's measurement to `rows` (or none, to leave the
// row out) or returns an error to stop; a file without any is an error too.
template <typename Row>
Result<std::vector<Measurement>> collectMeasurements(const std::vector<std::string_view>& lines,
                                                     std::size_t headerLine, std::size_t columns,
                                                     const std::string& fileName, Row&& row)
{
    std::vector<Measurement> rows;
    const auto failed = forEachRow(lines, headerLine, columns, fileName,
                                   [&](const std::vector<Field>& fields, std::size_t lineNumber) {
                                       return row(fields, lineNumber, rows);
                                   });
    if (failed)
        return *failed;
    if (rows.empty())
        return Error(fileName, "no measurements after the header");
    return rows;
}

// A header's column numbers by name.
using Columns = std::map<std::string, std::size_t, std::less<>>;

// A row's times from the columns named {average, minimum, maximum, standard deviation} into `m` (nullptr:
// a time the format does not have): the average a number of microseconds above 0, the others, where the
// file has their column, at least 0; each an error at its field.
std::optional<Error> readTimes(const std::vector<Field>& fields, const Columns& columns,
                               const std::array<const char*, 4>& names, const std::string& fileName,
                               std::size_t lineNumber, Measurement& m);

} // namespace xps::calibrate::csv
