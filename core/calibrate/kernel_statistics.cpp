#include "calibrate/kernel_statistics.h"

namespace xps::calibrate {

namespace {

using csv::Field;

// Every input of these runs is float16: SCALE-Sim-validation's kernel_configs.py builds each activation,
// element-wise and normalisation input as jnp.float16, and the files do not say it again.
constexpr const char* kDtype = "f16";

// The largest op a row may be: a batch norm of 64 x 256 x 128 x 128 is the largest these runs measure.
constexpr double kMaxElements = double(std::int64_t{1} << 28);

// "relu_(32, 8, 32)" or "add_(128,)": the op's name and its shape, or an error at the field.
std::optional<Error> readKernelName(const Field& f, const std::string& fileName, std::size_t lineNumber,
                                    Measurement& m)
{
    const std::size_t open = f.text.find("_(");
    const std::string_view name = f.text.substr(0, open);
    const auto op = open == std::string_view::npos ? std::nullopt : opClassNamed(name);
    if (!op || *op == OpClass::Matmul) {
        std::string known;
        for (std::size_t i = 1; i < kOpClassCount; ++i)
            known += (known.empty() ? "" : ", ") + std::string(opClassName(static_cast<OpClass>(i)));
        return Error(csv::at(fileName, lineNumber, f.column),
                     "kernel " + csv::shown(f.text) +
                         " is not an op calibration reads: expected NAME_(SHAPE) "
                         "with NAME one of " +
                         known + " (pooling and layer norm runs do not record their windows or axes)");
    }
    m.op = *op;
    std::string_view dims = f.text.substr(open + 2);
    const std::size_t dimsColumn = f.column + open + 2;
    if (dims.empty() || dims.back() != ')')
        return Error(csv::at(fileName, lineNumber, dimsColumn), "expected the shape to end with ')'");
    dims.remove_suffix(1);
    for (std::size_t start = 0; start < dims.size();) {
        const std::size_t comma = std::min(dims.find(',', start), dims.size());
        std::string_view part = dims.substr(start, comma - start);
        std::size_t blanks = 0;
        while (blanks < part.size() && part[blanks] == ' ')
            ++blanks;
        part.remove_prefix(blanks);
        const auto v = csv::readDimension(part);
        if (!v || m.shape.size() >= 4)
            return Error(csv::at(fileName, lineNumber, dimsColumn + start + blanks),
                         "expected a shape of 1 to 4 sides in 1..65536, found " + csv::shown(f.text));
        m.shape.push_back(*v);
        start = comma + 1;
    }
    if (m.shape.empty())
        return Error(csv::at(fileName, lineNumber, dimsColumn), "expected a shape, found ()");
    if (m.op == OpClass::BatchNormInference && m.shape.size() != 4)
        return Error(csv::at(fileName, lineNumber, dimsColumn), "a batch norm's shape is N, C, H, W");
    if (m.work() > kMaxElements)
        return Error(csv::at(fileName, lineNumber, dimsColumn), "more than 2^28 elements in one op");
    return std::nullopt;
}

} // namespace

bool isKernelStatistics(const csv::Columns& columns)
{
    return columns.contains("kernel_name") && columns.contains("avg_duration_us");
}

Result<std::vector<Measurement>> parseKernelStatistics(const std::vector<std::string_view>& lines,
                                                       std::size_t headerLine, const csv::Columns& columns,
                                                       const std::string& fileName)
{
    return csv::collectMeasurements(
        lines, headerLine, columns.size(), fileName,
        [&](const std::vector<Field>& fields, std::size_t lineNumber,
            std::vector<Measurement>& rows) -> std::optional<Error> {
            Measurement m;
            m.location = fileName + ":" + std::to_string(lineNumber);
            m.dtype = kDtype;
            if (auto e = readKernelName(fields[columns.find("kernel_name")->second], fileName, lineNumber, m))
                return e;
            if (auto e = csv::readTimes(
                    fields, columns,
                    {"avg_duration_us", "min_duration_us", "max_duration_us", "stddev_duration_us"}, fileName,
                    lineNumber, m))
                return e;
            rows.push_back(std::move(m));
            return std::nullopt;
        });
}

} // namespace xps::calibrate
