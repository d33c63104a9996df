#include "import/profile_semantics.h"

#include "import/chrome_json.h"

#include <map>
#include <numeric>
#include <set>
#include <utility>

namespace xps::importing {

using profile::SliceClass;
using profile::TrackKind;

namespace {

std::optional<SliceClass> classNamed(std::string_view name)
{
    for (int c = 0; c < profile::kSliceClassCount; ++c)
        if (profile::sliceClassName(static_cast<SliceClass>(c)) == name)
            return static_cast<SliceClass>(c);
    return std::nullopt;
}

} // namespace

nlohmann::json profileSemantics(const profile::Profile& p)
{
    nlohmann::json classes = nlohmann::json::array();
    for (const profile::EventType& t : p.types) {
        const std::string& name = p.string(t.name);
        const std::string& category = p.string(t.category);
        if (classifySlice(name, category) != t.cls)
            classes.push_back({name, category, std::string(profile::sliceClassName(t.cls))});
    }
    nlohmann::json devices = nlohmann::json::array();
    nlohmann::json details = nlohmann::json::array();
    for (const profile::Track& t : p.tracks) {
        if (t.device && t.kind == TrackKind::Process)
            devices.push_back({t.pid});
        else if (t.device && t.kind == TrackKind::Thread)
            devices.push_back({t.pid, t.tid});
        if (t.detail && t.kind == TrackKind::Thread)
            details.push_back({t.pid, t.tid});
    }
    nlohmann::json semantics = {
        {"version", 1}, {"format", p.format}, {"classes", classes}, {"device_tracks", devices}};
    if (!details.empty())
        semantics["detail_tracks"] = details;
    if (!p.timebase.isNanoseconds()) // its times are then written in picoseconds (chrome_writer.h)
        semantics["timebase"] = {p.timebase.nsNumerator, p.timebase.nsDenominator};
    return semantics;
}

std::optional<profile::Timebase> declaredTimebase(const nlohmann::json& semantics, std::string& wrong)
{
    const auto it = semantics.is_object() ? semantics.find("timebase") : semantics.end();
    if (!semantics.is_object() || it == semantics.end())
        return std::nullopt;
    // Ticks of at most a second and at least a femtosecond: beyond that the file is not one we wrote.
    constexpr std::int64_t kLimit = 1'000'000'000;
    const nlohmann::json& t = *it;
    if (!t.is_array() || t.size() != 2 || !t[0].is_number_integer() || !t[1].is_number_integer() ||
        t[0].get<std::int64_t>() < 1 || t[1].get<std::int64_t>() < 1 || t[0].get<std::int64_t>() > kLimit ||
        t[1].get<std::int64_t>() > kLimit) {
        wrong = "$." + std::string(kSemanticsKey) +
                ".timebase: expected [numerator, denominator], nanoseconds a tick, each from 1 to 10^9";
        return std::nullopt;
    }
    const std::int64_t num = t[0].get<std::int64_t>(), den = t[1].get<std::int64_t>(), g = std::gcd(num, den);
    return profile::Timebase{num / g, den / g};
}

std::size_t applyProfileSemantics(profile::Profile& p, const nlohmann::json& semantics)
{
    if (!semantics.is_object())
        return 1;
    std::size_t malformed = 0;
    std::map<std::pair<std::string, std::string>, SliceClass> classes;
    if (const auto it = semantics.find("classes"); it != semantics.end() && it->is_array())
        for (const nlohmann::json& c : *it) {
            const auto cls =
                c.is_array() && c.size() == 3 && c[0].is_string() && c[1].is_string() && c[2].is_string()
                    ? classNamed(c[2].get<std::string>())
                    : std::nullopt;
            if (!cls) {
                ++malformed;
                continue;
            }
            classes[{c[0].get<std::string>(), c[1].get<std::string>()}] = *cls;
        }
    for (profile::EventType& t : p.types)
        if (const auto it = classes.find({p.string(t.name), p.string(t.category)}); it != classes.end())
            t.cls = it->second;
    // [[pid, tid], ...]: thread tracks that break others down (Track::detail).
    if (const auto it = semantics.find("detail_tracks"); it != semantics.end() && it->is_array()) {
        std::set<std::pair<std::int64_t, std::int64_t>> details;
        for (const nlohmann::json& d : *it)
            if (d.is_array() && d.size() == 2 && d[0].is_number_integer() && d[1].is_number_integer())
                details.insert({d[0].get<std::int64_t>(), d[1].get<std::int64_t>()});
            else
                ++malformed;
        for (profile::Track& t : p.tracks)
            t.detail = t.kind == TrackKind::Thread && details.count({t.pid, t.tid}) > 0;
    }
    if (const auto it = semantics.find("device_tracks"); it != semantics.end() && it->is_array()) {
        std::set<std::int64_t> processes;
        std::set<std::pair<std::int64_t, std::int64_t>> threads;
        for (const nlohmann::json& d : *it) {
            if (d.is_array() && d.size() == 1 && d[0].is_number_integer())
                processes.insert(d[0].get<std::int64_t>());
            else if (d.is_array() && d.size() == 2 && d[0].is_number_integer() && d[1].is_number_integer())
                threads.insert({d[0].get<std::int64_t>(), d[1].get<std::int64_t>()});
            else
                ++malformed;
        }
        for (profile::Track& t : p.tracks)
            if (t.kind == TrackKind::Process)
                t.device = processes.count(t.pid) > 0;
            else if (t.kind == TrackKind::Thread)
                t.device = threads.count({t.pid, t.tid}) > 0;
    }
    if (const auto it = semantics.find("format"); it != semantics.end() && it->is_string())
        p.metadata.emplace_back("exported from", it->get<std::string>());
    return malformed;
}

} // namespace xps::importing
