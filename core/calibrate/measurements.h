#pragma once
// Measured latencies of single operations on real hardware (the calibration data of docs/calibration.md):
// one row per jitted op, read from CSV, and the StableHLO module that does the same op, so the GRM's
// prediction comes from the very lowering a user's model gets.

#include "calibrate/op_class.h"
#include "util/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace xps::calibrate {

// The largest side of a calibration op's shape, read from a CSV or a profile: a calibration op, not a
// model, so 64 Ki per side at most.
inline constexpr std::int64_t kMaxDimension = 1 << 16;

struct Measurement
{
    std::string location; // file:line of the row
    OpClass op = OpClass::Add;
    // matmul: {m, n, k} for C[m,n] = A[m,k] B[k,n]; any other: the (first) operand's shape
    std::vector<std::int64_t> shape;
    std::string dtype; // of the inputs: f16, bf16 or f32
    double averageUs = 0.0;
    double minimumUs = 0.0;
    double maximumUs = 0.0;
    double stddevUs = 0.0;

    // "matmul 512x512x512 f16" (m x n x k) or "sigmoid 1024x1024 f16".
    std::string label() const;
    // The work: multiply-adds of a matmul, elements of any other op.
    double work() const;
    // The decade of the work ("1e5-1e6 elements"): errors are reported per op class and size bucket.
    std::string sizeBucket() const;
};

// Which rows a calibration holds out, where the split is not random: every row with a side (m, n, k of a
// matmul; a dimension of any other op) larger than `side` (Larger), every row whose sides are all at most
// `side` (Smaller: fitted on large shapes, predicting small ones), every row of one op class (Class) or of
// one family of them (Family: every activation).
struct HoldOut
{
    enum class Kind : std::uint8_t { Larger, Smaller, Class, Family };
    Kind kind = Kind::Larger;
    std::int64_t side = 512;
    OpClass op = OpClass::Matmul;
    OpFamily family = OpFamily::Matmul;

    bool holds(const Measurement& m) const;
    // "larger:512", "smaller:512", "op:matmul", "family:activation": what --hold-out takes and what
    // reports say.
    std::string text() const;
};
// Parses --hold-out's value; an error says what is expected.
Result<HoldOut> parseHoldOut(std::string_view text);

// Reads a CSV file with a header row naming its columns: `op` (an op class's name, or dot), `dtype`,
// `measured_us_avg` (and optionally `measured_us_min`, `_max`, `_stddev`), and either `shape` ("1024x1024")
// or `m`, `n`, `k`; or SCALE-Sim TPU's GEMM table (M, N, K, dtype, latency_us_device, status:
// gemm_fusion_master.csv); or SCALE-Sim TPU validation's per-kernel tables (kernel_name "relu_(8, 32)",
// avg_duration_us, ...: kernel_statistics_filtered.csv of its activation, element-wise and batch norm runs).
// Errors name file:line:column and what was expected. At most 100,000 rows.
Result<std::vector<Measurement>> readMeasurements(const std::string& path);
Result<std::vector<Measurement>> parseMeasurements(std::string_view text, const std::string& fileName);

// The op as a StableHLO module whose @main takes the operands and returns the result.
std::string moduleText(const Measurement& m);

} // namespace xps::calibrate
