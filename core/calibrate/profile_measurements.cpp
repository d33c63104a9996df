#include "calibrate/profile_measurements.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

namespace xps::calibrate {

namespace {

constexpr std::size_t kMaxHloText = 1 << 20; // longer HLO text is not an op worth parsing
constexpr std::size_t kSkippedExamples = 6;

bool isIdentifierChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

void skipSpaces(std::string_view& s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
}

// The end of the bracketed group that opens at s[0] ('(', '{' or '['), or npos: brackets of all three kinds
// nest, and a quoted string (metadata) hides what it holds.
std::size_t matchingClose(std::string_view s)
{
    int depth = 0;
    bool quoted = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quoted) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                quoted = false;
            continue;
        }
        if (c == '"')
            quoted = true;
        else if (c == '(' || c == '{' || c == '[')
            ++depth;
        else if ((c == ')' || c == '}' || c == ']') && --depth == 0)
            return i;
    }
    return std::string_view::npos;
}

// "f16[128,64]{1,0:T(8,128)(2,1)}": the element type, the dimensions and (skipped) the layout. Consumes
// what it read.
std::optional<HloShape> parseShape(std::string_view& s)
{
    HloShape shape;
    std::size_t i = 0;
    while (i < s.size() && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
        ++i;
    if (i == 0 || i >= s.size() || s[i] != '[')
        return std::nullopt;
    shape.dtype = std::string(s.substr(0, i));
    s.remove_prefix(i + 1);
    while (!s.empty() && s.front() != ']') {
        std::int64_t v = 0;
        std::size_t digits = 0;
        while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') {
            if (digits == 12)
                return std::nullopt; // a trillion elements on a side: not a shape we can use
            v = v * 10 + (s[digits++] - '0');
        }
        if (digits == 0 || shape.dims.size() >= 8)
            return std::nullopt; // a dynamic dimension ("<=128"), a symbol, or more than 8 of them
        shape.dims.push_back(v);
        s.remove_prefix(digits);
        if (!s.empty() && s.front() == ',')
            s.remove_prefix(1);
    }
    if (s.empty())
        return std::nullopt;
    s.remove_prefix(1); // ']'
    if (!s.empty() && s.front() == '{') {
        const std::size_t close = matchingClose(s);
        if (close == std::string_view::npos)
            return std::nullopt;
        s.remove_prefix(close + 1);
    }
    return shape;
}

// The first integer of `key={...}` in the attributes, or -1.
int firstDimOf(std::string_view attributes, std::string_view key)
{
    const std::size_t at = attributes.find(key);
    if (at == std::string_view::npos)
        return -1;
    std::string_view s = attributes.substr(at + key.size());
    if (s.empty() || s.front() != '{')
        return -1;
    s.remove_prefix(1);
    int v = 0;
    std::size_t digits = 0;
    while (digits < s.size() && digits < 3 && s[digits] >= '0' && s[digits] <= '9')
        v = v * 10 + (s[digits++] - '0');
    return digits && digits < s.size() && s[digits] == '}' ? v : -1; // one contracting dimension only
}

// op_name="jit(matmul)/jit(main)/dot_general[dimension_numbers=...]" -> "dot_general".
std::string primitiveOf(std::string_view attributes)
{
    const std::size_t at = attributes.find("op_name=\"");
    if (at == std::string_view::npos)
        return {};
    std::string_view name = attributes.substr(at + 9);
    name = name.substr(0, std::min(name.find('"'), name.find('[')));
    const std::size_t slash = name.rfind('/');
    return std::string(slash == std::string_view::npos ? name : name.substr(slash + 1));
}

struct Classified
{
    std::optional<Measurement> row; // op, shape and dtype set; times not yet
    std::string why;                // when not
};

bool sameDims(const HloShape& a, const HloShape& b)
{
    return a.dims == b.dims;
}

Classified classify(const std::string& longName, const std::string& category)
{
    const std::optional<HloInstruction> hlo = parseHloInstruction(longName);
    if (!hlo)
        return {std::nullopt, longName.empty() ? "no HLO text (long_name)" : "HLO text not understood"};
    std::string op = !hlo->primitive.empty() ? hlo->primitive : hlo->opcode;
    if (hlo->primitive.empty() && hlo->opcode == "fusion" &&
        category.find("convolution") != std::string::npos)
        op = "dot_general"; // XProf's category for a fusion around the MXU
    const bool matmul = op == "dot_general" || op == "dot" || op == "matmul" || op == "convolution" ||
                        op == "conv_general_dilated";
    if (!matmul && op != "add")
        return {std::nullopt, "a " + op + ", not a matmul or an add"};
    if (hlo->operands.size() != 2)
        return {std::nullopt, hlo->operands.empty()
                                  ? "its HLO text does not print operand shapes"
                                  : "a " + op + " of " + std::to_string(hlo->operands.size()) + " operands"};
    const HloShape& lhs = hlo->operands[0];
    const HloShape& rhs = hlo->operands[1];
    if (lhs.dtype != "f16" && lhs.dtype != "bf16" && lhs.dtype != "f32")
        return {std::nullopt, "element type " + lhs.dtype + " (f16, bf16 and f32 are calibrated)"};
    if (rhs.dtype != lhs.dtype)
        return {std::nullopt, "operands of two element types"};
    for (const HloShape* s : {&lhs, &rhs, &hlo->result})
        for (const auto d : s->dims)
            if (d < 1 || d > kMaxDimension)
                return {std::nullopt, "a dimension outside 1..65536"};
    Measurement m;
    m.dtype = lhs.dtype;
    if (matmul) {
        if (lhs.dims.size() != 2 || rhs.dims.size() != 2 || hlo->result.dims.size() != 2)
            return {std::nullopt, "a " + op + " that is not of two matrices (batched or a convolution)"};
        const int lc = hlo->lhsContracting >= 0 ? hlo->lhsContracting : 1;
        const int rc = hlo->rhsContracting >= 0 ? hlo->rhsContracting : 0;
        if (lc > 1 || rc > 1)
            return {std::nullopt, "contracting dimensions out of range"};
        const std::int64_t M = lhs.dims[static_cast<std::size_t>(1 - lc)],
                           K = lhs.dims[static_cast<std::size_t>(lc)];
        const std::int64_t N = rhs.dims[static_cast<std::size_t>(1 - rc)];
        if (rhs.dims[static_cast<std::size_t>(rc)] != K ||
            hlo->result.dims != std::vector<std::int64_t>{M, N})
            return {std::nullopt, "shapes that do not make C[m,n] = A[m,k] B[k,n]"};
        m.op = OpClass::Matmul;
        m.shape = {M, N, K};
    } else {
        if (!sameDims(lhs, rhs) || !sameDims(lhs, hlo->result) || lhs.dims.empty() || lhs.dims.size() > 4)
            return {std::nullopt, "an add that is not of two operands of its own shape (1 to 4 sides)"};
        m.op = OpClass::Add;
        m.shape = lhs.dims;
        if (m.work() > double(1 << 26))
            return {std::nullopt, "more than 2^26 elements"};
    }
    return {std::move(m), {}};
}

std::string stringMember(const nlohmann::json& args, const char* key)
{
    const auto it = args.find(key);
    return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}

struct Runs
{
    Measurement row;
    std::size_t count = 0;
    double mean = 0, m2 = 0, minimum = 0, maximum = 0; // Welford's running mean and sum of squares
    std::string firstOp, device;
    void add(double us)
    {
        minimum = count ? std::min(minimum, us) : us;
        maximum = count ? std::max(maximum, us) : us;
        ++count;
        const double delta = us - mean;
        mean += delta / static_cast<double>(count);
        m2 += delta * (us - mean);
    }
};

} // namespace

std::optional<HloInstruction> parseHloInstruction(std::string_view text)
{
    if (text.empty() || text.size() > kMaxHloText)
        return std::nullopt;
    HloInstruction out;
    std::string_view s = text;
    skipSpaces(s);
    if (s.starts_with("ROOT "))
        s.remove_prefix(5);
    if (!s.empty() && s.front() == '%')
        s.remove_prefix(1);
    const std::size_t eq = s.find(" = ");
    if (eq == std::string_view::npos || eq == 0)
        return std::nullopt;
    out.name = std::string(s.substr(0, eq));
    s.remove_prefix(eq + 3);
    skipSpaces(s);
    if (!s.empty() && s.front() == '(') { // a tuple result: no shape of its own to match
        const std::size_t close = matchingClose(s);
        if (close == std::string_view::npos)
            return std::nullopt;
        s.remove_prefix(close + 1);
    } else if (auto shape = parseShape(s)) {
        out.result = std::move(*shape);
    } else {
        return std::nullopt;
    }
    skipSpaces(s);
    std::size_t n = 0;
    while (n < s.size() && isIdentifierChar(s[n]))
        ++n;
    if (n == 0 || n >= s.size() || s[n] != '(')
        return std::nullopt;
    out.opcode = std::string(s.substr(0, n));
    s.remove_prefix(n);
    const std::size_t close = matchingClose(s);
    if (close == std::string_view::npos)
        return std::nullopt;
    std::string_view operands = s.substr(1, close - 1);
    const std::string_view attributes = s.substr(close + 1);
    bool shapesPrinted = true;
    while (!operands.empty() && shapesPrinted) {
        skipSpaces(operands);
        std::size_t end = 0; // the operand's end: a comma outside brackets
        for (int depth = 0; end < operands.size(); ++end) {
            const char c = operands[end];
            if (c == '(' || c == '{' || c == '[')
                ++depth;
            else if (c == ')' || c == '}' || c == ']')
                --depth;
            else if (c == ',' && depth == 0)
                break;
        }
        std::string_view operand = operands.substr(0, end);
        if (auto shape = parseShape(operand))
            out.operands.push_back(std::move(*shape));
        else
            shapesPrinted = false; // "%p0" alone: the text was printed without operand shapes
        operands.remove_prefix(std::min(end + 1, operands.size()));
    }
    if (!shapesPrinted)
        out.operands.clear();
    out.primitive = primitiveOf(attributes);
    out.lhsContracting = firstDimOf(attributes, "lhs_contracting_dims=");
    out.rhsContracting = firstDimOf(attributes, "rhs_contracting_dims=");
    return out;
}

Result<ProfileMeasurements> measurementsFromProfile(const profile::Profile& profile,
                                                    const std::string& fileName)
{
    ProfileMeasurements out;
    std::unordered_map<std::uint32_t, Classified> byArgs; // argument set -> what its ops are
    std::map<std::string, Runs> runs;                     // by label: "matmul 128x256x64 f16"
    std::size_t deviceOps = 0;
    for (const profile::Track& track : profile.tracks) {
        const bool device = track.device || (track.parent.valid() && profile.track(track.parent).device);
        if (!device)
            continue;
        for (std::uint32_t i = track.firstSlice; i < track.firstSlice + track.sliceCount; ++i) {
            const profile::Slice& slice = profile.slices[i];
            if (profile.classOf(slice) != profile::SliceClass::Kernel || slice.duration <= 0)
                continue;
            ++deviceOps;
            auto [it, added] = byArgs.try_emplace(slice.args);
            if (added) {
                const nlohmann::json args = nlohmann::json::parse(profile.args(slice.args), nullptr, false);
                it->second = args.is_object() ? classify(stringMember(args, "long_name"),
                                                         stringMember(args, "hlo_category"))
                                              : Classified{std::nullopt, "no HLO text (long_name)"};
            }
            const Classified& c = it->second;
            if (!c.row) {
                ++out.opsSkipped;
                if (out.skippedExamples.size() < kSkippedExamples) {
                    std::string example = profile.nameOf(slice) + ": " + c.why;
                    if (std::find(out.skippedExamples.begin(), out.skippedExamples.end(), example) ==
                        out.skippedExamples.end())
                        out.skippedExamples.push_back(std::move(example));
                }
                continue;
            }
            ++out.opsMatched;
            Runs& r = runs[c.row->label()];
            if (r.count == 0) {
                r.row = *c.row;
                r.firstOp = profile.nameOf(slice);
                r.device = profile.track(profile.processOf(slice.track())).name;
            }
            r.add(static_cast<double>(slice.duration) / 1000.0);
        }
    }
    if (runs.empty()) {
        std::string found = deviceOps == 0
                                ? "no XLA op ran on a device"
                                : std::to_string(deviceOps) + " device op runs, none a matmul or an add "
                                                              "with shapes in its HLO text";
        if (!out.skippedExamples.empty())
            found += " (" + out.skippedExamples.front() + ")";
        return Error(fileName, "no measurements: " + found +
                                   "; expected XProf's XLA ops with their HLO text (long_name)");
    }
    for (auto& [label, r] : runs) {
        Measurement m = r.row;
        m.location = fileName + ": " + r.firstOp + " on " + r.device + ", " + std::to_string(r.count) +
                     (r.count == 1 ? " run" : " runs");
        m.averageUs = r.mean;
        m.minimumUs = r.minimum;
        m.maximumUs = r.maximum;
        m.stddevUs = std::sqrt(r.m2 / static_cast<double>(r.count));
        out.rows.push_back(std::move(m));
    }
    return out;
}

} // namespace xps::calibrate
