#pragma once
// Helpers for GRM tests: assemble a snippet and replay it.

#include "test_support.h"

#include "asm/assembler.h"
#include "replayer.h"

#include <bit>

namespace xps::test {

struct Replayed
{
    trace::Trace trace;
    events::EventStore store;
    sim::ReplayResult result;
};

inline std::unique_ptr<Replayed> replayTrace(trace::Trace trace, sim::ReplayMode mode = sim::ReplayMode::Full)
{
    auto r = std::make_unique<Replayed>();
    r->trace = std::move(trace);
    r->result = sim::replay(r->trace, {mode}, r->store);
    return r;
}

inline std::unique_ptr<Replayed> replaySource(const std::string& source,
                                              sim::ReplayMode mode = sim::ReplayMode::Full)
{
    auto t = assembly::assemble(source, "test.xasm");
    if (!t.ok())
        qFatal("%s", t.error().toString().c_str());
    return replayTrace(std::move(t).value(), mode);
}

inline std::vector<float> readFloats(sim::ChipState& state, isa::Space space, std::uint64_t address,
                                     std::size_t count)
{
    std::vector<float> out(count);
    state.memory(space).read(address, {reinterpret_cast<std::uint8_t*>(out.data()), count * 4});
    return out;
}

inline std::vector<float> generated(const trace::Generator& g, std::size_t count)
{
    std::vector<float> out(count);
    sim::generateBytes(g, 0, {reinterpret_cast<std::uint8_t*>(out.data()), count * 4});
    return out;
}

inline std::string faultText(const Replayed& r)
{
    return r.result.fault ? r.result.fault->toString() : std::string("<no fault>");
}

// Every bundle issue a replay recorded, in order, and the first one of `pc`.
inline std::vector<events::BundleIssue> bundles(const Replayed& r)
{
    const auto snapshot = r.store.bundles();
    std::vector<events::BundleIssue> out;
    for (std::size_t i = 0; i < snapshot.size(); ++i)
        out.push_back(snapshot[i]);
    return out;
}

inline const events::BundleIssue* atPc(const std::vector<events::BundleIssue>& b, std::uint32_t pc)
{
    for (const auto& e : b)
        if (e.pc == pc)
            return &e;
    return nullptr;
}

} // namespace xps::test
