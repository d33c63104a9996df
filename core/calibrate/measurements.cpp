#include "calibrate/measurements.h"

#include "calibrate/csv_fields.h"
#include "calibrate/kernel_statistics.h"
#include "trace/trace_io.h"
#include "util/utf8.h"

#include <array>
#include <charconv>
#include <cmath>
#include <map>

namespace xps::calibrate {

namespace {

using csv::at;
using csv::Field;
using csv::readDimension;
using csv::shown;

} // namespace

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
Result<std::vector<Measurement>> parseGemmTable(const std::vector<std::string_view>& lines,
                                                std::size_t headerLine, const csv::Columns& columns,
                                                const std::string& fileName)
{
    const auto status = columns.find("status");
    return csv::collectMeasurements(
        lines, headerLine, columns.size(), fileName,
        [&](const std::vector<Field>& fields, std::size_t lineNumber,
            std::vector<Measurement>& rows) -> std::optional<Error> {
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
            if (auto e = csv::readTimes(fields, columns, {"latency_us_device", nullptr, nullptr, nullptr},
                                        fileName, lineNumber, m))
                return e;
            rows.push_back(std::move(m));
            return std::nullopt;
        });
}

} // namespace

Result<std::vector<Measurement>> parseMeasurements(std::string_view text, const std::string& fileName)
{
    if (!text::isValidUtf8(text))
        return Error(fileName, "not UTF-8 text: expected a CSV file of measurements");
    const std::vector<std::string_view> lines = csv::splitLines(text);
    std::size_t headerLine = 0;
    while (headerLine < lines.size() && csv::splitFields(lines[headerLine]).front().text.empty())
        ++headerLine;
    if (headerLine == lines.size())
        return Error(fileName,
                     "empty: expected a header row (op,dtype,measured_us_avg,...) and measurements");
    csv::Columns columns;
    for (std::size_t i = 0; const Field& f : csv::splitFields(lines[headerLine]))
        columns.emplace(std::string(f.text), i++);
    const auto column = [&](std::string_view name) -> std::optional<std::size_t> {
        const auto it = columns.find(name);
        return it == columns.end() ? std::nullopt : std::optional(it->second);
    };
    // SCALE-Sim TPU's GEMM table (gemm_fusion_master.csv): M, N, K, dtype, latency_us_device, status.
    if (!column("op") && column("M") && column("N") && column("K") && column("latency_us_device") &&
        column("dtype"))
        return parseGemmTable(lines, headerLine, columns, fileName);
    if (isKernelStatistics(columns))
        return parseKernelStatistics(lines, headerLine, columns, fileName);
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

    return csv::collectMeasurements(
        lines, headerLine, columns.size(), fileName,
        [&](const std::vector<Field>& fields, std::size_t lineNumber,
            std::vector<Measurement>& rows) -> std::optional<Error> {
            const auto field = [&](std::string_view name) { return fields[*column(name)]; };
            Measurement m;
            m.location = fileName + ":" + std::to_string(lineNumber);
            const Field op = field("op");
            const auto named = op.text == "dot" ? std::optional(OpClass::Matmul) : opClassNamed(op.text);
            if (!named)
                return Error(at(fileName, lineNumber, op.column),
                             "unknown op " + shown(op.text) +
                                 ": expected matmul, add, sub, mul, div, an "
                                 "activation (relu, sigmoid, ...) or batch_norm_inference");
            m.op = *named;
            if (auto e = readDtype(field("dtype"), fileName, lineNumber, m))
                return e;
            if (m.op == OpClass::Matmul) {
                if (!hasMnk)
                    return Error(at(fileName, lineNumber, 1), "a matmul needs the m, n and k columns");
                if (auto e = readSides({"m", "n", "k"}, field, fileName, lineNumber, m))
                    return e;
            } else {
                if (!hasShape)
                    return Error(at(fileName, lineNumber, 1),
                                 "a" + std::string(m.op == OpClass::Add ? "n " : " ") +
                                     std::string(opClassName(m.op)) + " needs the shape column");
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
                    return Error(at(fileName, lineNumber, f.column), "more than 2^26 elements in one op");
                if (m.op == OpClass::BatchNormInference && m.shape.size() != 4)
                    return Error(at(fileName, lineNumber, f.column), "a batch norm's shape is NxCxHxW");
            }
            if (auto e = csv::readTimes(
                    fields, columns,
                    {"measured_us_avg", "measured_us_min", "measured_us_max", "measured_us_stddev"}, fileName,
                    lineNumber, m))
                return e;
            rows.push_back(std::move(m));
            return std::nullopt;
        });
}

Result<std::vector<Measurement>> readMeasurements(const std::string& path)
{
    auto text = trace::readTextFile(path, std::uint64_t{64} << 20);
    if (!text)
        return text.error();
    return parseMeasurements(*text, path);
}

bool HoldOut::holds(const Measurement& m) const
{
    if (kind == Kind::Class)
        return m.op == op;
    if (kind == Kind::Family)
        return opFamily(m.op) == family;
    const std::int64_t largest = m.shape.empty() ? 0 : *std::max_element(m.shape.begin(), m.shape.end());
    return kind == Kind::Larger ? largest > side : largest <= side;
}

std::string HoldOut::text() const
{
    if (kind == Kind::Class)
        return "op:" + std::string(opClassName(op));
    if (kind == Kind::Family)
        return "family:" + std::string(opFamilyName(family));
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
        const auto op = opClassNamed(value);
        if (!op)
            return Error("--hold-out", "expected op:NAME with an op class's name (matmul, add, sigmoid, "
                                       "batch_norm_inference, ...; docs/calibration.md), not '" +
                                           std::string(text) + "'");
        h.op = *op;
        return h;
    }
    if (kind == "family") {
        h.kind = HoldOut::Kind::Family;
        const auto family = opFamilyNamed(value);
        if (!family)
            return Error("--hold-out", "expected family:matmul, family:elementwise, family:activation or "
                                       "family:normalization, not '" +
                                           std::string(text) + "'");
        h.family = *family;
        return h;
    }
    if (kind != "larger" && kind != "smaller")
        return Error("--hold-out",
                     "expected larger:N, smaller:N, op:NAME or family:NAME, not '" + std::string(text) + "'");
    h.kind = kind == "larger" ? HoldOut::Kind::Larger : HoldOut::Kind::Smaller;
    const auto side = readDimension(value);
    if (!side)
        return Error("--hold-out", "expected a side in 1..65536 after '" + std::string(kind) + ":', not '" +
                                       std::string(value) + "'");
    h.side = *side;
    return h;
}

} // namespace xps::calibrate
