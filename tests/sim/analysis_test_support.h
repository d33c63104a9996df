#pragma once
// What the analysis and suggestion suites share: a replay analysed as the explorer analyses it (every
// analysis, then the proposals), lookups into its suggestions, and the late-prefetch kernel.
#include "sim/sim_support.h"

#include "analysis/analyze.h"
#include "suggest/propose.h"

#include <memory>
#include <string>
#include <vector>

namespace xps::test {

struct Analyzed
{
    std::unique_ptr<test::Replayed> replayed;
    std::unique_ptr<analysis::ReplayView> view;
    analysis::Analyses analyses;
    std::vector<suggest::Suggestion> suggestions;
};

inline Analyzed analyze(std::unique_ptr<test::Replayed> replayed)
{
    Analyzed a;
    a.replayed = std::move(replayed);
    if (a.replayed->result.fault)
        qFatal("%s", test::faultText(*a.replayed).c_str());
    a.view = std::make_unique<analysis::ReplayView>(analysis::ReplayView{
        a.replayed->trace, a.replayed->store, a.replayed->result.totalCycles, a.replayed->result.chips});
    a.analyses = analysis::analyzeReplay(*a.view);
    a.suggestions = suggest::proposeSuggestions(*a.view, a.analyses);
    return a;
}

inline Analyzed analyze(const std::string& source)
{
    return analyze(test::replaySource(source));
}

inline Analyzed analyze(trace::Trace trace)
{
    return analyze(test::replayTrace(std::move(trace)));
}

inline const suggest::Suggestion* findKind(const std::vector<suggest::Suggestion>& s, const std::string& kind)
{
    for (const auto& x : s)
        if (x.kind == kind)
            return &x;
    return nullptr;
}

inline std::uint64_t issueCycleOf(const test::Replayed& r, std::uint32_t pc)
{
    const auto b = r.store.bundles();
    for (std::size_t i = 0; i < b.size(); ++i)
        if (b[i].pc == pc)
            return b[i].cycle;
    qFatal("pc %u never issued", pc);
}

// A store to x, then K = 20 independent scalar bundles, then the DMA that copies x out: the DMA could
// have been issued right after the store.
inline std::string latePrefetch(int k)
{
    std::string s = R"(
.machine chips=1
.vmem y, 0, 4096
.vmem x, 0x1000, 4096
.hbm out, 0, 4096
.init y, random_f32, seed=3, lo=-1.0, hi=1.0
.output out
    vld v0, [y]
    vst v0, [x]
)";
    for (int i = 0; i < k; ++i)
        s += "    smov s1, " + std::to_string(i) + "\n";
    s += "    dma.start hbm[out], vmem[x], 4096, 0\n    sync.wait 0, 1\n    halt\n";
    return s;
}

} // namespace xps::test
