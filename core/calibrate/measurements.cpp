#include "calibrate/measurements.h"

#include "trace/trace_io.h"
#include "util/utf8.h"

#include <array>
#include <charconv>
#include <cmath>
#include <map>

namespace xps::calibrate {

namespace {

constexpr std::size_t kMaxRows = 100000;

struct Field
{
    std::string_view text;
    std::size_t column = 1; // 1-based
};

std::vector<Field> splitFields(std::string_view line)
{
    std::vector<Field> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
        std::string_view f = line.substr(start, end - start);
        std::size_t column = start + 1;
        while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) {
            f.remove_prefix(1);
            ++column;
        }
        while (!f.empty() && (f.back() == ' ' || f.back() == '\t' || f.back() == '\r'))
            f.remove_suffix(1);
        fields.push_back({f, column});
        if (comma == std::string_view::npos)
            return fields;
        start = comma + 1;
    }
}

std::string at(const std::string& file, std::size_t line, std::size_t column)
{
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string shown(std::string_view text)
{
    return text.empty() ? std::string("nothing") : "'" + std::string(text.substr(0, 40)) + "'";
}

std::optional<double> readNumber(std::string_view text)
{
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::optional<std::int64_t> readDimension(std::string_view text)
{
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || v < 1 || v > kMaxDimension)
        return std::nullopt;
    return v;
}

} // namespace

std::string_view opClassName(OpClass op)
{
    return op == OpClass::Matmul ? "matmul" : "add";
}

std::string Measurement::label() const
{
    std::string dims;
    for (const auto d : shape)
        dims += (dims.empty() ? "" : "x") + std::to_string(d);
    return std::string(opClassName(op)) + " " + dims + " " + dtype;
}

double Measurement::work() const
{
    double w = 1.0;
    for (const auto d : shape)
        w *= static_cast<double>(d);
    return w;
}

std::string Measurement::sizeBucket() const
{
    const int decade = static_cast<int>(std::floor(std::log10(std::max(work(), 1.0))));
    return "1e" + std::to_string(decade) + "-1e" + std::to_string(decade + 1) +
           (op == OpClass::Matmul ? " MACs" : " elements");
}

namespace {

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

// A row's dtype field into `m`, or an error at its column.
std::optional<Error> readDtype(const Field& dtype, const std::string& fileName, std::size_t lineNumber,
                               Measurement& m)
{
    if (dtype.text != "f16" && dtype.text != "bf16" && dtype.text != "f32")
        return Error(at(fileName, lineNumber, dtype.column),
                     "unknown dtype " + shown(dtype.text) + ": expected f16, bf16 or f32");
    m.dtype = std::string(dtype.text);
    return std::nullopt;
}

// A matmul's three sides, the fields named `names` in order, appended to `m`'s shape.
template <typename FieldOf>
std::optional<Error> readSides(const std::array<const char*, 3>& names, FieldOf&& field,
                               const std::string& fileName, std::size_t lineNumber, Measurement& m)
{
    for (const char* name : names) {
        const Field f = field(name);
        const auto v = readDimension(f.text);
        if (!v)
            return Error(at(fileName, lineNumber, f.column), std::string("expected ") + name +
                                                                 " as an integer in 1..65536, found " +
                                                                 shown(f.text));
        m.shape.push_back(*v);
    }
    return std::nullopt;
}

// SCALE-Sim TPU's table of GEMMs C[M,N] = A[M,K] x B[K,N] (scalesim/calibration_pure/gemm_fusion_master.csv):
// each row's device time (latency_us_device, what XProf's device timeline gives; latency_us_wallclock
// includes the host), its dtype; rows whose status is not "ok" are left out.
Result<std::vector<Measurement>>
parseGemmTable(const std::vector<std::string_view>& lines, std::size_t headerLine,
               const std::map<std::string, std::size_t, std::less<>>& columns, const std::string& fileName)
{
    const auto status = columns.find("status");
    std::vector<Measurement> rows;
    const auto failed = forEachRow(
        lines, headerLine, columns.size(), fileName,
        [&](const std::vector<Field>& fields, std::size_t lineNumber) -> std::optional<Error> {
            const auto field = [&](std::string_view name) { return fields[columns.find(name)->second]; };
            if (status != columns.end() && fields[status->second].text != "ok")
                return std::nullopt;
            Measurement m;
            m.location = fileName + ":" + std::to_string(lineNumber);
            m.op = OpClass::Matmul;
            if (auto e = readDtype(field("dtype"), fileName, lineNumber, m))
                return e;
            if (auto e = readSides({"M", "N", "K"}, field, fileName, lineNumber, m))
                return e;
            const Field time = field("latency_us_device");
            const auto v = readNumber(time.text);
            if (!v || !(*v > 0.0))
                return Error(at(fileName, lineNumber, time.column),
                             "expected latency_us_device as a positive number of microseconds, found " +
                                 shown(time.text));
            m.averageUs = *v;
            rows.push_back(std::move(m));
            return std::nullopt;
        });
    if (failed)
        return *failed;
    if (rows.empty())
        return Error(fileName, "no measurements after the header");
    return rows;
}

} // namespace

Result<std::vector<Measurement>> parseMeasurements(std::string_view text, const std::string& fileName)
{
    if (!text::isValidUtf8(text))
        return Error(fileName, "not UTF-8 text: expected a CSV file of measurements");
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    std::size_t headerLine = 0;
    while (headerLine < lines.size() && splitFields(lines[headerLine]).front().text.empty())
        ++headerLine;
    if (headerLine == lines.size())
        return Error(fileName,
                     "empty: expected a header row (op,dtype,measured_us_avg,...) and measurements");
    std::map<std::string, std::size_t, std::less<>> columns;
    for (std::size_t i = 0; const Field& f : splitFields(lines[headerLine]))
        columns.emplace(std::string(f.text), i++);
    const auto column = [&](std::string_view name) -> std::optional<std::size_t> {
        const auto it = columns.find(name);
        return it == columns.end() ? std::nullopt : std::optional(it->second);
    };
    // SCALE-Sim TPU's GEMM table (gemm_fusion_master.csv): M, N, K, dtype, latency_us_device, status.
    if (!column("op") && column("M") && column("N") && column("K") && column("latency_us_device") &&
        column("dtype"))
        return parseGemmTable(lines, headerLine, columns, fileName);
    for (const char* required : {"op", "dtype", "measured_us_avg"})
        if (!column(required))
            return Error(at(fileName, headerLine + 1, 1),
                         std::string("the header has no '") + required +
                             "' column: expected op, dtype, measured_us_avg and shape (or m, n, k)");
    const bool hasShape = column("shape").has_value();
    const bool hasMnk = column("m") && column("n") && column("k");
    if (!hasShape && !hasMnk)
        return Error(at(fileName, headerLine + 1, 1),
                     "the header has neither a 'shape' column nor 'm', 'n' and 'k' columns");

    std::vector<Measurement> rows;
    const auto failed = forEachRow(
        lines, headerLine, columns.size(), fileName,
        [&](const std::vector<Field>& fields, std::size_t lineNumber) -> std::optional<Error> {
            const auto field = [&](std::string_view name) { return fields[*column(name)]; };
            Measurement m;
            m.location = fileName + ":" + std::to_string(lineNumber);
            const Field op = field("op");
            if (op.text == "matmul" || op.text == "dot")
                m.op = OpClass::Matmul;
            else if (op.text == "add")
                m.op = OpClass::Add;
            else
                return Error(at(fileName, lineNumber, op.column),
                             "unknown op " + shown(op.text) + ": expected matmul or add");
            if (auto e = readDtype(field("dtype"), fileName, lineNumber, m))
                return e;
            if (m.op == OpClass::Matmul) {
                if (!hasMnk)
                    return Error(at(fileName, lineNumber, 1), "a matmul needs the m, n and k columns");
                if (auto e = readSides({"m", "n", "k"}, field, fileName, lineNumber, m))
                    return e;
            } else {
                if (!hasShape)
                    return Error(at(fileName, lineNumber, 1), "an add needs the shape column");
                const Field f = field("shape");
                std::size_t start = 0;
                while (true) {
                    const std::size_t x = f.text.find('x', start);
                    const std::string_view part = f.text.substr(
                        start, x == std::string_view::npos ? std::string_view::npos : x - start);
                    const auto v = readDimension(part);
                    if (!v || m.shape.size() >= 4)
                        return Error(at(fileName, lineNumber, f.column + start),
                                     "expected a shape like 1024x1024 (1 to 4 sides in 1..65536), found " +
                                         shown(f.text));
                    m.shape.push_back(*v);
                    if (x == std::string_view::npos)
                        break;
                    start = x + 1;
                }
                if (m.work() > double(1 << 26))
                    return Error(at(fileName, lineNumber, f.column), "more than 2^26 elements in one add");
            }
            const auto number = [&](std::string_view name, double& out,
                                    bool required) -> std::optional<Error> {
                if (!column(name)) {
                    if (required)
                        return Error(at(fileName, lineNumber, 1), "no " + std::string(name) + " column");
                    return std::nullopt;
                }
                const Field f = field(name);
                const auto v = readNumber(f.text);
                if (!v || *v < 0.0)
                    return Error(at(fileName, lineNumber, f.column),
                                 "expected " + std::string(name) +
                                     " as a non-negative number of microseconds, found " + shown(f.text));
                out = *v;
                return std::nullopt;
            };
            if (auto e = number("measured_us_avg", m.averageUs, true))
                return *e;
            if (m.averageUs <= 0.0)
                return Error(at(fileName, lineNumber, field("measured_us_avg").column),
                             "measured_us_avg must be above 0");
            for (const auto& [name, out] : {std::pair<const char*, double*>{"measured_us_min", &m.minimumUs},
                                            {"measured_us_max", &m.maximumUs},
                                            {"measured_us_stddev", &m.stddevUs}})
                if (auto e = number(name, *out, false))
                    return *e;
            rows.push_back(std::move(m));
            return std::nullopt;
        });
    if (failed)
        return *failed;
    if (rows.empty())
        return Error(fileName, "no measurements after the header");
    return rows;
}

Result<std::vector<Measurement>> readMeasurements(const std::string& path)
{
    auto text = trace::readTextFile(path, std::uint64_t{64} << 20);
    if (!text)
        return text.error();
    return parseMeasurements(*text, path);
}

std::string moduleText(const Measurement& m)
{
    const auto tensor = [&](std::vector<std::int64_t> dims) {
        std::string t = "tensor<";
        for (const auto d : dims)
            t += std::to_string(d) + "x";
        return t + m.dtype + ">";
    };
    if (m.op == OpClass::Matmul) {
        const auto M = m.shape[0], N = m.shape[1], K = m.shape[2];
        const std::string a = tensor({M, K}), b = tensor({K, N}), c = tensor({M, N});
        return "module @matmul {\n  func.func public @main(%a: " + a + ", %b: " + b + ") -> " + c +
               " {\n    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" + a + ", " + b +
               ") -> " + c + "\n    return %0 : " + c + "\n  }\n}\n";
    }
    const std::string t = tensor(m.shape);
    return "module @add {\n  func.func public @main(%x: " + t + ", %y: " + t + ") -> " + t +
           " {\n    %0 = stablehlo.add %x, %y : " + t + "\n    return %0 : " + t + "\n  }\n}\n";
}

bool HoldOut::holds(const Measurement& m) const
{
    if (kind == Kind::Class)
        return m.op == op;
    const std::int64_t largest = m.shape.empty() ? 0 : *std::max_element(m.shape.begin(), m.shape.end());
    return kind == Kind::Larger ? largest > side : largest <= side;
}

std::string HoldOut::text() const
{
    if (kind == Kind::Class)
        return "op:" + std::string(opClassName(op));
    return std::string(kind == Kind::Larger ? "larger:" : "smaller:") + std::to_string(side);
}

Result<HoldOut> parseHoldOut(std::string_view text)
{
    const auto colon = text.find(':');
    const std::string_view kind = text.substr(0, colon);
    const std::string_view value =
        colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
    HoldOut h;
    if (kind == "op") {
        h.kind = HoldOut::Kind::Class;
        if (value == "matmul")
            h.op = OpClass::Matmul;
        else if (value == "add")
            h.op = OpClass::Add;
        else
            return Error("--hold-out", "expected op:matmul or op:add, not '" + std::string(text) + "'");
        return h;
    }
    if (kind != "larger" && kind != "smaller")
        return Error("--hold-out",
                     "expected larger:N, smaller:N or op:CLASS, not '" + std::string(text) + "'");
    h.kind = kind == "larger" ? HoldOut::Kind::Larger : HoldOut::Kind::Smaller;
    const auto side = readDimension(value);
    if (!side)
        return Error("--hold-out", "expected a side in 1..65536 after '" + std::string(kind) + ":', not '" +
                                       std::string(value) + "'");
    h.side = *side;
    return h;
}

} // namespace xps::calibrate
