#pragma once
// Measured op latencies taken from a profile of the ops on the real chip (an XProf XSpace, *.xplane.pb, or
// the same profile as Chrome JSON), as calibration's other source beside CSV files. Each XLA op a device ran
// is matched by op name and shape: the JAX primitive its HLO metadata names (op_name
// "jit(f)/jit(main)/dot_general[...]"), else its HLO opcode, else (a fusion) its hlo_category; the shapes
// come from its HLO text ("%fusion.1 = f16[128,256]{1,0} fusion(f16[128,64]{1,0} %p0, f16[64,256]{1,0} %p1),
// ..."). A 2-D dot_general / dot / convolution becomes a matmul row (m, n, k, with the dot's contracting
// dims), an add of equal shapes an add row; every run of the same (op, shape, dtype) is one row: the average,
// minimum, maximum and (population) standard deviation of their device durations, as the shared CSVs hold
// them.

#include "calibrate/measurements.h"
#include "profile/profile.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xps::calibrate {

struct ProfileMeasurements
{
    std::vector<Measurement> rows;
    std::size_t opsMatched = 0; // device op runs that became part of a row
    std::size_t opsSkipped = 0; // device op runs of other ops or shapes
    std::vector<std::string>
        skippedExamples; // a few of those, each with why ("copy.2: not a matmul or an add")
};

// `fileName` names the rows' locations ("FILE: fusion.1 on /device:TPU:0, 12 runs"). A profile with no
// device op that matches is an error that says what was found instead.
Result<ProfileMeasurements> measurementsFromProfile(const profile::Profile& profile,
                                                    const std::string& fileName);

// What one HLO instruction's text says, for the matching above (exposed for its tests).
struct HloShape
{
    std::string dtype; // "f16", "bf16", "f32", ...
    std::vector<std::int64_t> dims;
};
struct HloInstruction
{
    std::string name;   // "fusion.1"
    std::string opcode; // "fusion", "dot", "add", ...
    HloShape result;
    std::vector<HloShape> operands; // empty where the text does not print operand shapes
    std::string primitive;          // from metadata op_name: "dot_general", "add"; empty if none
    int lhsContracting = -1, rhsContracting = -1; // a dot's lhs_contracting_dims / rhs_contracting_dims
};
std::optional<HloInstruction> parseHloInstruction(std::string_view text);

} // namespace xps::calibrate
