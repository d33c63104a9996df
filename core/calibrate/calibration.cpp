#include "calibrate/calibration.h"

#include "report/report.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace xps::calibrate {

namespace {

std::string format(const char* pattern, double v)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, v);
    return buffer;
}

std::string valueText(const FreeParameter& p, double v)
{
    return p.integer ? std::to_string(std::llround(v)) : format("%.4g", v);
}

// Colour-blind-safe colours (Okabe and Ito) per op family in the scatter plot.
std::string familyColour(OpFamily f)
{
    switch (f) {
    case OpFamily::Matmul: return "#0072b2";
    case OpFamily::Elementwise: return "#d55e00";
    case OpFamily::Activation: return "#009e73";
    case OpFamily::Normalization: return "#cc79a7";
    }
    return "#000000";
}

} // namespace

std::vector<GroupStats> groupStats(const CalibrationResult& r)
{
    // (op, bucket) pairs in a stable order: op classes, then buckets by size.
    std::set<std::pair<std::string, double>> keys;
    for (const Measurement& m : r.rows)
        keys.emplace(std::string(opClassName(m.op)), std::floor(std::log10(std::max(m.work(), 1.0))));
    std::set<std::string> ops;
    for (const auto& [op, decade] : keys)
        ops.insert(op);

    std::vector<GroupStats> out;
    const auto add = [&](const std::string& op, const std::string& bucket, const std::string& split,
                         const auto& take) {
        std::vector<double> predicted, start, measured;
        for (std::size_t i = 0; i < r.rows.size(); ++i) {
            if (!take(r.rows[i]))
                continue;
            if ((split == "held-out" && r.training[i]) || (split == "training" && !r.training[i]))
                continue;
            predicted.push_back(r.predictedUs[i]);
            start.push_back(r.startPredictedUs[i]);
            measured.push_back(r.rows[i].averageUs);
        }
        if (!measured.empty())
            out.push_back({op, bucket, split, errorStats(predicted, measured), errorStats(start, measured)});
    };
    // A family of several op classes (the activations) has its rows too.
    std::map<OpFamily, std::set<OpClass>> families;
    for (const Measurement& m : r.rows)
        families[opFamily(m.op)].insert(m.op);
    for (const char* split : {"held-out", "training", "all"}) {
        add("all", "all", split, [](const Measurement&) { return true; });
        for (const auto& entry : families) {
            const OpFamily family = entry.first; // a copy: lambdas may not capture a structured binding
            if (entry.second.size() > 1)
                add(std::string(opFamilyName(family)), "all", split,
                    [&](const Measurement& m) { return opFamily(m.op) == family; });
        }
        for (const auto& op : ops) {
            add(op, "all", split, [&](const Measurement& m) { return opClassName(m.op) == op; });
            for (const auto& [keyOp, decade] : keys) {
                if (keyOp != op)
                    continue;
                std::string bucket;
                for (const Measurement& m : r.rows)
                    if (opClassName(m.op) == op &&
                        std::floor(std::log10(std::max(m.work(), 1.0))) == decade) {
                        bucket = m.sizeBucket();
                        break;
                    }
                add(op, bucket, split, [&](const Measurement& m) {
                    return opClassName(m.op) == op && m.sizeBucket() == bucket;
                });
            }
        }
    }
    return out;
}

std::string calibrationText(const CalibrationResult& r)
{
    std::string s;
    std::size_t trainRows = 0;
    for (const bool t : r.training)
        trainRows += t ? 1 : 0;
    s += "calibrated on " + std::to_string(trainRows) + " of " + std::to_string(r.rows.size()) +
         " measurements (" +
         (r.holdOut.empty() ? "seed " + std::to_string(r.seed) : "held out: " + r.holdOut) + "); the other " +
         std::to_string(r.rows.size() - trainRows) + " are held out\n";
    s += "free parameters (bounds) -> fitted:\n";
    for (std::size_t i = 0; i < r.parameters.size(); ++i) {
        const auto& p = r.parameters[i];
        s += "  " + p.key + " [" + valueText(p, p.lower) + ", " + valueText(p, p.upper) +
             "]: " + valueText(p, r.startValues[i]) + " -> " + valueText(p, r.fittedValues[i]) + "\n";
    }
    s += "absolute percentage error, fitted (base machine in brackets):\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-9s %-20s %-22s %5s %13s %8s %8s %8s %7s\n", "split", "op", "size",
                  "rows", "MAPE", "median", "p90", "worst", "R^2");
    s += line;
    for (const GroupStats& g : groupStats(r)) {
        if (g.split == "training" && g.bucket != "all")
            continue;
        std::snprintf(line, sizeof line,
                      "  %-9s %-20s %-22s %5zu %5.1f%% [%4.0f%%] %7.1f%% %7.1f%% %7.1f%% %7.3f\n",
                      g.split.c_str(), g.op.c_str(), g.bucket.c_str(), g.fitted.rows, g.fitted.mape,
                      g.start.mape, g.fitted.median, g.fitted.p90, g.fitted.worst, g.fitted.r2);
        s += line;
    }
    std::snprintf(line, sizeof line, "%d evaluations of the training rows in %.1f s on %u threads\n",
                  r.evaluations, r.seconds, r.threads);
    s += line;
    return s;
}

nlohmann::json calibrationJson(const CalibrationResult& r)
{
    using nlohmann::json;
    json j;
    j["format"] = "xpushark-calibration";
    j["version"] = 1;
    j["seed"] = r.seed;
    j["train_fraction"] = r.trainFraction;
    if (!r.holdOut.empty())
        j["hold_out"] = r.holdOut; // the rule, instead of the seeded split
    j["evaluations"] = r.evaluations;
    j["seconds"] = r.seconds;
    j["parameters"] = json::array();
    for (std::size_t i = 0; i < r.parameters.size(); ++i) {
        const auto& p = r.parameters[i];
        j["parameters"].push_back({{"key", p.key},
                                   {"lower", p.lower},
                                   {"upper", p.upper},
                                   {"integer", p.integer},
                                   {"start", r.startValues[i]},
                                   {"fitted", r.fittedValues[i]},
                                   {"meaning", p.why}});
    }
    j["machine"] = isa::machineConfigToJson(r.fitted);
    j["errors"] = json::array();
    for (const GroupStats& g : groupStats(r)) {
        const auto stats = [](const ErrorStats& e) {
            return json{{"rows", e.rows},   {"mape_pct", e.mape},   {"median_pct", e.median},
                        {"p90_pct", e.p90}, {"worst_pct", e.worst}, {"r2", e.r2}};
        };
        j["errors"].push_back({{"split", g.split},
                               {"op", g.op},
                               {"size", g.bucket},
                               {"fitted", stats(g.fitted)},
                               {"base", stats(g.start)}});
    }
    j["rows"] = json::array();
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const Measurement& m = r.rows[i];
        j["rows"].push_back({{"source", m.location},
                             {"op", std::string(opClassName(m.op))},
                             {"family", std::string(opFamilyName(opFamily(m.op)))},
                             {"shape", m.shape},
                             {"dtype", m.dtype},
                             {"split", r.training[i] ? "training" : "held-out"},
                             {"measured_us", m.averageUs},
                             {"predicted_us", r.predictedUs[i]},
                             {"base_predicted_us", r.startPredictedUs[i]},
                             {"residual_us", r.predictedUs[i] - m.averageUs},
                             {"error_pct", 100.0 * (r.predictedUs[i] - m.averageUs) / m.averageUs}});
    }
    return j;
}

std::string scatterSvg(const CalibrationResult& r)
{
    constexpr double kWidth = 640, kHeight = 520, kLeft = 70, kRight = 20, kTop = 30, kBottom = 60;
    double lo = 1e300, hi = 0.0;
    for (std::size_t i = 0; i < r.rows.size(); ++i)
        for (const double v : {r.rows[i].averageUs, r.predictedUs[i]})
            if (v > 0.0) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    if (hi <= 0.0)
        lo = 1.0, hi = 10.0;
    // The data's range and a little more; grid lines at 1, 2 and 5 of every decade inside it.
    double l0 = std::log10(lo) - 0.06, l1 = std::log10(hi) + 0.06;
    if (l1 - l0 < 1.0) {
        const double middle = (l0 + l1) / 2;
        l0 = middle - 0.5;
        l1 = middle + 0.5;
    }
    const double span = l1 - l0;
    const auto x = [&](double v) { return kLeft + (std::log10(v) - l0) / span * (kWidth - kLeft - kRight); };
    const auto y = [&](double v) {
        return kHeight - kBottom - (std::log10(v) - l0) / span * (kHeight - kTop - kBottom);
    };
    std::string s =
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 640 520\" width=\"640\" height=\"520\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"640\" height=\"520\" fill=\"white\"/>\n";
    std::vector<double> ticks;
    for (double decade = std::floor(l0); decade <= std::ceil(l1); decade += 1.0)
        for (const double m : {1.0, 2.0, 5.0}) {
            const double v = m * std::pow(10.0, decade);
            if (std::log10(v) >= l0 && std::log10(v) <= l1)
                ticks.push_back(v);
        }
    for (const double v : ticks) {
        const std::string label = format("%g", v);
        s += "<line x1=\"" + format("%.1f", x(v)) + "\" y1=\"" + format("%.1f", kTop) + "\" x2=\"" +
             format("%.1f", x(v)) + "\" y2=\"" + format("%.1f", kHeight - kBottom) + "\" stroke=\"#ddd\"/>\n";
        s += "<line x1=\"" + format("%.1f", kLeft) + "\" y1=\"" + format("%.1f", y(v)) + "\" x2=\"" +
             format("%.1f", kWidth - kRight) + "\" y2=\"" + format("%.1f", y(v)) + "\" stroke=\"#ddd\"/>\n";
        s += "<text x=\"" + format("%.1f", x(v)) + "\" y=\"" + format("%.1f", kHeight - kBottom + 18) +
             "\" text-anchor=\"middle\">" + label + "</text>\n";
        s += "<text x=\"" + format("%.1f", kLeft - 8) + "\" y=\"" + format("%.1f", y(v) + 4) +
             "\" text-anchor=\"end\">" + label + "</text>\n";
    }
    const double a = std::pow(10.0, l0), b = std::pow(10.0, l1);
    s += "<line x1=\"" + format("%.1f", x(a)) + "\" y1=\"" + format("%.1f", y(a)) + "\" x2=\"" +
         format("%.1f", x(b)) + "\" y2=\"" + format("%.1f", y(b)) +
         "\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n";
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const std::string colour = familyColour(opFamily(r.rows[i].op));
        s += "<circle cx=\"" + format("%.1f", x(r.rows[i].averageUs)) + "\" cy=\"" +
             format("%.1f", y(r.predictedUs[i])) + "\" r=\"2.6\" fill=\"" +
             (r.training[i] ? colour : "none") + "\" stroke=\"" + colour + "\"><title>" +
             report::escapeHtml(r.rows[i].label()) + ": measured " + format("%.3f", r.rows[i].averageUs) +
             " us, predicted " + format("%.3f", r.predictedUs[i]) + " us</title></circle>\n";
    }
    s += "<text x=\"" + format("%.1f", (kLeft + kWidth - kRight) / 2) + "\" y=\"" +
         format("%.1f", kHeight - 18) + "\" text-anchor=\"middle\">measured on TPU (us, log)</text>\n";
    s += "<text transform=\"translate(16 " + format("%.1f", (kTop + kHeight - kBottom) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">predicted by the GRM (us, log)</text>\n";
    s += "<text x=\"80\" y=\"20\">";
    for (const OpFamily f :
         {OpFamily::Matmul, OpFamily::Elementwise, OpFamily::Activation, OpFamily::Normalization})
        s += "<tspan fill=\"" + familyColour(f) + "\">&#9679; " + std::string(opFamilyName(f)) + "</tspan>  ";
    s += "</text>\n<text x=\"" + format("%.1f", (kLeft + kWidth - kRight) / 2) + "\" y=\"" +
         format("%.1f", kHeight - 2) +
         "\" text-anchor=\"middle\" font-size=\"12\">filled: training, hollow: held out; dashed: predicted = "
         "measured</text>\n";
    return s + "</svg>\n";
}

std::string calibrationHtml(const CalibrationResult& r)
{
    std::string h =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>xpushark calibration"
        "</title>\n<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:"
        "collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
        "th{background:#f4f4f4}td:first-child,td:nth-child(2),td:nth-child(3){text-align:left}</style>"
        "</head><body>\n<h1>Calibration of the GRM</h1>\n";
    h += "<pre>" + report::escapeHtml(calibrationText(r)) + "</pre>\n";
    h += "<h2>Predicted against measured</h2>\n" + scatterSvg(r);
    h += "<h2>Errors per op class and size (held-out "
         "rows)</h2>\n<table><tr><th>op</th><th>size</th><th>split</th>"
         "<th>rows</th><th>MAPE</th><th>median</th><th>p90</th><th>worst</th><th>R&sup2;</th><th>MAPE "
         "before</th></tr>\n";
    for (const GroupStats& g : groupStats(r))
        h += "<tr><td>" + g.op + "</td><td>" + g.bucket + "</td><td>" + g.split + "</td><td>" +
             std::to_string(g.fitted.rows) + "</td><td>" + format("%.1f%%", g.fitted.mape) + "</td><td>" +
             format("%.1f%%", g.fitted.median) + "</td><td>" + format("%.1f%%", g.fitted.p90) + "</td><td>" +
             format("%.1f%%", g.fitted.worst) + "</td><td>" + format("%.3f", g.fitted.r2) + "</td><td>" +
             format("%.1f%%", g.start.mape) + "</td></tr>\n";
    h +=
        "</table>\n<h2>Residual per row</h2>\n<table><tr><th>row</th><th>op</th><th>source</th><th>split</th>"
        "<th>measured us</th><th>predicted us</th><th>error</th></tr>\n";
    for (std::size_t i = 0; i < r.rows.size(); ++i)
        h += "<tr><td>" + std::to_string(i + 1) + "</td><td>" + report::escapeHtml(r.rows[i].label()) +
             "</td><td>" + report::escapeHtml(r.rows[i].location) + "</td><td>" +
             (r.training[i] ? "training" : "held-out") + "</td><td>" + format("%.3f", r.rows[i].averageUs) +
             "</td><td>" + format("%.3f", r.predictedUs[i]) + "</td><td>" +
             format("%+.1f%%", 100.0 * (r.predictedUs[i] - r.rows[i].averageUs) / r.rows[i].averageUs) +
             "</td></tr>\n";
    return h + "</table>\n</body></html>\n";
}

} // namespace xps::calibrate
