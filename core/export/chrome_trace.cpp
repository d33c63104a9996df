#include "export/chrome_trace.h"
#include "util/utf8.h"

#include "asm/disassembler.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

namespace xps::exporting {
namespace {

constexpr int kBundleThread = 1;
constexpr int kStallThread = 2;
constexpr int kWaitThread = 3;
constexpr int kRegionThread = 4;
constexpr int kDmaThreadBase = 100;

std::string jsonString(std::string_view s)
{
    std::string out;
    text::appendJsonString(out, s);
    return out;
}

class Writer
{
public:
    Writer(std::FILE* f, double clockMhz) : m_f(f), m_clock(clockMhz) {}

    double us(std::uint64_t cycle) const { return static_cast<double>(cycle) / m_clock; }

    void event(const std::string& body)
    {
        std::fputs(m_first ? "\n" : ",\n", m_f);
        m_first = false;
        std::fputs(body.c_str(), m_f);
    }
    void meta(int pid, int tid, const char* what, const std::string& name)
    {
        char b[160];
        std::snprintf(b, sizeof b,
                      "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":", pid, tid,
                      what);
        event(b + jsonString(name) + "}}");
    }
    void slice(int pid, int tid, const std::string& name, std::uint64_t start, std::uint64_t end,
               const std::string& args)
    {
        char b[160];
        // A zero-length slice still gets one cycle so it can be seen and clicked.
        std::snprintf(b, sizeof b,
                      "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.4f,\"dur\":%.4f,\"name\":", pid, tid,
                      us(start), us(std::max(end, start + 1)) - us(start));
        event(b + jsonString(name) + ",\"args\":{" + args + "}}");
    }
    void flow(char phase, int id, int pid, int tid, double ts)
    {
        char b[200];
        std::snprintf(b, sizeof b,
                      "{\"ph\":\"%c\",\"id\":%d,\"pid\":%d,\"tid\":%d,\"ts\":%.4f,\"name\":\"dma->wait\","
                      "\"cat\":\"flow\"%s}",
                      phase, id, pid, tid, ts, phase == 'f' ? ",\"bp\":\"e\"" : "");
        event(b);
    }

private:
    std::FILE* m_f;
    double m_clock;
    bool m_first = true;
};

} // namespace

namespace {
Status writeEvents(const trace::Trace& trace, const events::EventStore& store, const std::string& temp,
                   const std::string& path);
} // namespace

Status writeChromeTrace(const trace::Trace& trace, const events::EventStore& store, const std::string& path)
{
    return writeFileAtomically(
        path, [&](const std::string& temp) { return writeEvents(trace, store, temp, path); });
}

namespace {

Status writeEvents(const trace::Trace& trace, const events::EventStore& store, const std::string& temp,
                   const std::string& path)
{
    std::FILE* f = std::fopen(temp.c_str(), "wb");
    if (!f)
        return Error(path, std::string("cannot write: ") + std::strerror(errno));
    Writer w(f, trace.machine.clockMhz);
    std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);

    const auto dmas = store.dmas();
    for (const trace::ChipTrace& chip : trace.chips) {
        const int pid = chip.chip;
        w.meta(pid, 0, "process_name", "chip " + std::to_string(chip.chip));
        w.meta(pid, kBundleThread, "thread_name", "bundles");
        w.meta(pid, kStallThread, "thread_name", "stalls");
        w.meta(pid, kWaitThread, "thread_name", "sync waits");
        w.meta(pid, kRegionThread, "thread_name", "regions");
        for (int e = 0; e < trace.machine.dmaEngines; ++e)
            w.meta(pid, kDmaThreadBase + e, "thread_name", "DMA engine " + std::to_string(e));
    }

    // Bundle text once per pc, not once per issue.
    std::vector<std::vector<std::string>> text(trace.chips.size());
    for (std::size_t c = 0; c < trace.chips.size(); ++c)
        for (const isa::Bundle& b : trace.chips[c].program.bundles)
            text[c].push_back(jsonString(assembly::disassembleBundle(b, trace.chips[c].symbols)));

    const events::BundleSnapshot bundles = store.bundles();
    for (std::size_t i = 0; i < bundles.size(); ++i) {
        const events::BundleIssue e = bundles[i];
        const std::string& bundleText = text[e.chip][e.pc];
        w.slice(e.chip, kBundleThread, "pc " + text::hex(e.pc), e.cycle, e.cycle + 1,
                "\"bundle\":" + bundleText);
        if (e.stallCycles > 0)
            w.slice(e.chip, kStallThread, std::string(events::stallReasonName(e.reason)),
                    e.cycle - e.stallCycles, e.cycle,
                    "\"pc\":\"" + text::hex(e.pc) + "\",\"bundle\":" + bundleText);
    }
    std::map<std::uint32_t, const events::DmaRecord*> byId;
    for (const events::DmaRecord& d : dmas) {
        byId[d.id] = &d;
        const std::string name = "dma #" + std::to_string(d.id) + " " +
                                 std::string(isa::spaceName(static_cast<isa::Space>(d.srcSpace))) + "->" +
                                 std::string(isa::spaceName(static_cast<isa::Space>(d.dstSpace))) +
                                 (d.dstChip != d.chip ? " chip " + std::to_string(d.dstChip) : std::string());
        w.slice(d.chip, kDmaThreadBase + d.engine, name, d.start, d.end,
                "\"bytes\":" + std::to_string(d.bytes) + ",\"src\":\"" + text::hex(d.srcAddress) +
                    "\",\"dst\":\"" + text::hex(d.dstAddress) + "\",\"flag\":" + std::to_string(d.flag) +
                    ",\"issue_pc\":\"" + text::hex(d.pc) +
                    "\",\"issued_at_cycle\":" + std::to_string(d.issue));
    }
    int flowId = 0;
    for (const events::SyncWaitRecord& s : store.syncWaits()) {
        w.slice(s.chip, kWaitThread,
                "wait flag " + std::to_string(s.flag) + " >= " + std::to_string(s.target), s.start, s.end,
                "\"pc\":\"" + text::hex(s.pc) + "\",\"satisfied_by_dma\":" + std::to_string(s.satisfiedBy));
        const auto it =
            s.satisfiedBy >= 0 ? byId.find(static_cast<std::uint32_t>(s.satisfiedBy)) : byId.end();
        if (it == byId.end() || s.end == s.start)
            continue;
        const events::DmaRecord& d = *it->second;
        ++flowId;
        // The arrow leaves the DMA's slice just before it ends and enters the wait's slice at its end.
        w.flow('s', flowId, d.chip, kDmaThreadBase + d.engine, w.us(std::max(d.end, d.start + 1)) - 0.0005);
        w.flow('f', flowId, s.chip, kWaitThread, w.us(std::max(s.end, s.start + 1)) - 0.0005);
    }
    for (const events::RegionRecord& r : store.regions()) {
        const auto& regions = trace.chips[r.chip].symbols.regions;
        const std::string name =
            r.region < regions.size() ? regions[r.region].name : "region #" + std::to_string(r.region);
        w.slice(r.chip, kRegionThread, name, r.enter, r.exit, "\"depth\":" + std::to_string(r.depth));
    }
    std::fputs("\n]}\n", f);
    const bool ok = std::fflush(f) == 0 && !std::ferror(f);
    std::fclose(f);
    if (!ok)
        return Error(path, "could not write the Chrome trace (disk full?)");
    return Ok{};
}

} // namespace

} // namespace xps::exporting
