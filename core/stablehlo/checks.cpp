// The checks of StableHLO test modules, with the tolerances StableHLO's interpreter gives them
// (stablehlo/tools/StablehloTranslateMain.cpp and stablehlo/tests/CheckOps.td):
//   custom_call @check.expect_close      0..3 ulp
//   custom_call @check.expect_almost_eq  |actual - expected| <= 0.001
//   custom_call @check.expect_eq         exact
//   custom_call @check.eq                exact for integers, <= 0.0001 for floats; yields the verdict as i1
//   check.expect_close                   min_ulp_difference (0) .. max_ulp_difference (1) ulp
//   check.expect_almost_eq[_const]       tolerance attribute, 0.0001 when absent
//   check.expect_eq[_const]              exact
// A NaN matches a NaN; infinities match only themselves.

#include <cmath>

#include "stablehlo/checks.h"
#include "stablehlo/eval_ops.h"

namespace xps::shlo {

using detail::evalFail;
using detail::Inputs;

namespace {

enum class Mode { Exact, Tolerance, Ulp };

struct Rule
{
    Mode mode = Mode::Exact;
    double tolerance = 0;
    std::uint64_t minUlp = 0, maxUlp = 0;
};

double attrNumber(const Operation& op, std::string_view name, double fallback)
{
    const auto* a = op.attributes.find(name);
    if (!a)
        return fallback;
    if (a->kind == Attribute::Kind::Float)
        return a->real;
    if (a->kind == Attribute::Kind::Integer)
        return static_cast<double>(a->integer);
    evalFail("attribute '" + std::string(name) + "' must be a number");
}

bool almostEqual(double a, double b, double tolerance)
{
    if (a == b)
        return true;
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    if (!std::isfinite(a) || !std::isfinite(b))
        return false;
    return std::fabs(a - b) <= tolerance;
}

} // namespace

bool isCheckOp(const Operation& op)
{
    switch (op.kind) {
    case OpKind::ExpectEq:
    case OpKind::ExpectEqConst:
    case OpKind::ExpectAlmostEq:
    case OpKind::ExpectAlmostEqConst:
    case OpKind::ExpectClose: return true;
    case OpKind::CustomCall:
        return op.callee == "check.expect_close" || op.callee == "check.expect_almost_eq" ||
               op.callee == "check.expect_eq" || op.callee == "check.eq";
    default: return false;
    }
}

CheckOutcome evaluateCheck(const Operation& op, const Inputs& in, const std::string& location)
{
    CheckOutcome out;
    out.location = location;
    out.check = op.kind == OpKind::CustomCall ? op.callee : std::string(opName(op.kind));
    TensorValue constant;
    const TensorValue* actual = in.empty() ? nullptr : in[0];
    const TensorValue* expected = in.size() > 1 ? in[1] : nullptr;
    if (op.kind == OpKind::ExpectEqConst || op.kind == OpKind::ExpectAlmostEqConst) {
        if (in.size() != 1)
            evalFail(out.check + " takes one operand and a dense literal");
        const auto* value = op.attributes.find("value");
        if (!value)
            evalFail(out.check + " without its expected literal");
        auto v = literalValue(*value, actual->type, location);
        if (!v)
            evalFail(v.error().message());
        constant = std::move(*v);
        expected = &constant;
    } else if (in.size() != 2) {
        evalFail(out.check + " takes two operands: actual, expected");
    }
    Rule rule;
    const bool flt = isFloat(actual->type.element);
    if (out.check == "check.expect_close") {
        rule.mode = Mode::Ulp;
        const bool custom = op.kind == OpKind::CustomCall;
        rule.maxUlp = static_cast<std::uint64_t>(attrNumber(op, "max_ulp_difference", custom ? 3 : 1));
        rule.minUlp = static_cast<std::uint64_t>(attrNumber(op, "min_ulp_difference", 0));
    } else if (out.check == "check.expect_almost_eq" || op.kind == OpKind::ExpectAlmostEqConst) {
        rule.mode = Mode::Tolerance;
        rule.tolerance = attrNumber(op, "tolerance", op.kind == OpKind::CustomCall ? 0.001 : 0.0001);
    } else if (out.check == "check.eq" && flt) {
        rule.mode = Mode::Tolerance;
        rule.tolerance = 0.0001;
    }
    out.tolerance = rule.mode == Mode::Exact ? "exact"
                    : rule.mode == Mode::Tolerance
                        ? "|difference| <= " + formatElement(ElementType::F32, rule.tolerance)
                        : std::to_string(rule.minUlp) + ".." + std::to_string(rule.maxUlp) + " ulp";
    if (actual->type != expected->type) {
        out.worst = "actual is " + actual->type.toString() + ", expected " + expected->type.toString();
        out.failing = 1;
        return out;
    }
    if (rule.mode == Mode::Ulp && !flt)
        evalFail("check.expect_close compares floats");
    const auto type = actual->type.element;
    out.elements = static_cast<std::int64_t>(actual->data.size());
    double worstScore = -1;
    for (std::size_t i = 0; i < actual->data.size(); ++i) {
        const double a = actual->data[i], e = expected->data[i];
        bool ok = false;
        double score = 0;
        std::string detail;
        switch (rule.mode) {
        case Mode::Exact:
            ok = a == e || (std::isnan(a) && std::isnan(e));
            score = ok ? 0 : std::isfinite(a - e) ? std::fabs(a - e) : INFINITY;
            break;
        case Mode::Tolerance:
            ok = almostEqual(a, e, rule.tolerance);
            score = ok ? 0 : std::isfinite(a - e) ? std::fabs(a - e) : INFINITY;
            detail = " (difference " + formatElement(ElementType::F32, std::fabs(a - e)) + ")";
            break;
        case Mode::Ulp: {
            const auto ulp = ulpDifference(type, a, e);
            ok = ulp >= rule.minUlp && ulp <= rule.maxUlp;
            score = static_cast<double>(ulp);
            detail = ulp == UINT64_MAX ? " (not comparable in ulp)" : " (" + std::to_string(ulp) + " ulp)";
            break;
        }
        }
        if (!ok)
            ++out.failing;
        if (!ok && score > worstScore) {
            worstScore = score;
            out.worst = formatIndex(actual->type.shape, static_cast<std::int64_t>(i)) + ": actual " +
                        formatElement(type, a) + ", expected " + formatElement(type, e) + detail;
        }
    }
    out.passed = out.failing == 0;
    return out;
}

} // namespace xps::shlo
