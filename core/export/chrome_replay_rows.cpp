#include "export/chrome_replay_rows.h"

#include "analysis/replay_profile.h"
#include "asm/disassembler.h"
#include "isa/isa.h"
#include "util/text.h"
#include "util/utf8.h"

#include <algorithm>

namespace xps::exporting {
namespace {

std::string jsonString(std::string_view s)
{
    std::string out;
    text::appendJsonString(out, s);
    return out;
}

std::string metadata(std::int64_t pid, std::int64_t tid, const char* what, const std::string& args)
{
    return "{\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
           ",\"name\":\"" + what + "\",\"args\":{" + args + "}}";
}

} // namespace

ReplayRows::ReplayRows(const trace::Trace& trace, const events::EventStore& store)
    : m_trace(trace), m_store(store)
{
    m_dmas = m_store.dmas();
    // Four metadata events a chip (two more where the profile has no process for it), a slice per bundle
    // and one per stall.
    m_events = 6 * trace.chips.size();
    const events::BundleSnapshot bundles = m_store.bundles();
    for (const auto& chunk : bundles.chunks())
        for (std::size_t i = 0; i < chunk->size; ++i)
            m_events += 1 + chunk->stalled(i);
}

std::string ReplayRows::dmaArgs(std::uint32_t dmaId) const
{
    // The GRM's ids are 0..n-1, so the DMA is at its id; a search finds it where they are not.
    const auto at =
        dmaId < m_dmas.size() && m_dmas[dmaId].id == dmaId
            ? m_dmas.begin() + dmaId
            : std::lower_bound(m_dmas.begin(), m_dmas.end(), dmaId,
                               [](const events::DmaRecord& d, std::uint32_t id) { return d.id < id; });
    if (at == m_dmas.end() || at->id != dmaId)
        return {};
    const events::DmaRecord& d = *at;
    std::string args = "\"dma\":" + std::to_string(d.id) + ",\"src\":\"" + text::hex(d.srcAddress) +
                       "\",\"dst\":\"" + text::hex(d.dstAddress) +
                       "\",\"issued_at_cycle\":" + std::to_string(d.issue);
    if (d.convert != 0)
        args += ",\"cvt\":" + std::to_string(d.convert);
    return args;
}

bool ReplayRows::profileHasProcess(const profile::Profile& p, int chip) const
{
    for (const profile::Track& t : p.tracks)
        if (t.kind == profile::TrackKind::Process && t.pid == chip)
            return true;
    return false;
}

void ReplayRows::addDeviceTracks(const profile::Profile& p, nlohmann::json& semantics) const
{
    nlohmann::json& devices = semantics["device_tracks"];
    nlohmann::json& details = semantics["detail_tracks"];
    if (!details.is_array())
        details = nlohmann::json::array();
    for (int chip = 0; chip < static_cast<int>(m_trace.chips.size()); ++chip) {
        if (!profileHasProcess(p, chip))
            devices.push_back({chip});
        for (const std::int64_t tid : {analysis::replay_tid::kBundles, analysis::replay_tid::kStalls}) {
            devices.push_back({chip, tid});
            details.push_back({chip, tid});
        }
    }
}

void ReplayRows::write(ChromeEventWriter& w, const profile::Profile& p) const
{
    using analysis::replay_tid::kBundles;
    using analysis::replay_tid::kStalls;
    // In the profile's timebase (its cycles at the clock), as its own rows are: one picosecond scale for all.
    const profile::Timebase& tb = p.timebase;
    // A chip is its position in the trace, as the store and the profile (its pid) number it.
    for (int chip = 0; chip < static_cast<int>(m_trace.chips.size()); ++chip) {
        if (!profileHasProcess(p, chip)) {
            w.event(
                metadata(chip, 0, "process_name", "\"name\":" + jsonString("chip " + std::to_string(chip))));
            w.event(metadata(chip, 0, "process_sort_index", "\"sort_index\":" + std::to_string(chip)));
        }
        for (const auto& [tid, name] : {std::pair{kBundles, "bundles"}, std::pair{kStalls, "stalls"}}) {
            w.event(metadata(chip, tid, "thread_name", "\"name\":" + jsonString(name)));
            w.event(metadata(chip, tid, "thread_sort_index", "\"sort_index\":" + std::to_string(tid)));
        }
    }
    // Bundle text once per pc, not once per issue.
    std::vector<std::vector<std::string>> text(m_trace.chips.size());
    for (std::size_t c = 0; c < m_trace.chips.size(); ++c)
        for (const isa::Bundle& b : m_trace.chips[c].program.bundles)
            text[c].push_back(jsonString(assembly::disassembleBundle(b, m_trace.chips[c].symbols)));
    const auto slice = [&](int pid, std::int64_t tid, const std::string& name, const char* category,
                           events::Cycle start, events::Cycle end, const std::string& args) {
        // A slice gets at least one cycle, so it can be seen and clicked.
        const std::int64_t from = tb.toPicos(static_cast<profile::Ticks>(start));
        w.event("{\"ph\":\"X\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
                ",\"ts\":" + microsFromPicos(from) + ",\"dur\":" +
                microsFromPicos(tb.toPicos(static_cast<profile::Ticks>(std::max(end, start + 1))) - from) +
                ",\"name\":" + name + ",\"cat\":\"" + category + "\",\"args\":{" + args + "}}");
    };
    const events::BundleSnapshot bundles = m_store.bundles();
    for (std::size_t i = 0; i < bundles.size(); ++i) {
        const events::BundleIssue e = bundles[i];
        if (e.chip.value >= text.size() || e.pc >= text[e.chip.value].size())
            continue;
        const int pid = e.chip.value;
        const std::string& bundleText = text[e.chip.value][e.pc];
        const std::string pc = text::hex(e.pc);
        slice(pid, kBundles, "\"pc " + pc + "\"", "bundle", e.cycle, e.cycle + 1, "\"bundle\":" + bundleText);
        if (e.stallCycles > 0)
            slice(pid, kStalls, jsonString(events::stallReasonName(e.reason)), "stall",
                  e.cycle - e.stallCycles, e.cycle, "\"pc\":\"" + pc + "\",\"bundle\":" + bundleText);
    }
}

} // namespace xps::exporting
