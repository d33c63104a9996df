#include "suggest/suggestion.h"

#include "util/text.h"

namespace xps::suggest {
namespace {

std::string chipList(const std::vector<ChipId>& chips)
{
    if (chips.empty())
        return "";
    bool consecutive = true;
    for (std::size_t i = 1; i < chips.size(); ++i)
        consecutive = consecutive && chips[i].value == chips[i - 1].value + 1;
    if (chips.size() == 1)
        return " (chip " + std::to_string(chips[0].value) + ")";
    if (consecutive)
        return " (chips " + std::to_string(chips.front().value) + "-" + std::to_string(chips.back().value) +
               ")";
    std::string s = " (chips ";
    for (std::size_t i = 0; i < chips.size(); ++i)
        s += (i ? "," : "") + std::to_string(chips[i].value);
    return s + ")";
}

} // namespace

std::string_view changeKindName(ChangeKind kind)
{
    switch (kind) {
    case ChangeKind::HoistDma: return "hoist-dma";
    case ChangeKind::SplitDma: return "split-dma";
    case ChangeKind::SplitRoute: return "split-route";
    case ChangeKind::DoubleBuffer: return "double-buffer";
    case ChangeKind::RelaxWait: return "relax-wait";
    case ChangeKind::RebalanceEngines: return "rebalance-engines";
    case ChangeKind::MachineParam: return "machine-param";
    case ChangeKind::Regenerate: return "regenerate";
    }
    return "?";
}

std::string Change::describe() const
{
    switch (kind) {
    case ChangeKind::HoistDma:
        return "move the dma.start at pc " + std::to_string(pc) + (newBundle ? " into a new bundle before pc " : " to pc ") +
               std::to_string(toPc) + chipList(chips);
    case ChangeKind::SplitDma:
        return "split the dma.start at pc " + std::to_string(pc) + " into two halves, the second on engine " +
               std::to_string(engine) + chipList(chips);
    case ChangeKind::SplitRoute:
        return "split the dma.start at pc " + std::to_string(pc) + ": the first " + text::formatBytes(static_cast<std::uint64_t>(firstBytes)) +
               " by the shortest route, the rest the long way round (route=1) on engine " + std::to_string(engine) + chipList(chips);
    case ChangeKind::DoubleBuffer: {
        std::string s = "double-buffer: the dma.start";
        s += pcs.size() == 1 ? " at pc " : "s at pcs ";
        for (std::size_t i = 0; i < pcs.size(); ++i)
            s += (i ? ", " : "") + std::to_string(pcs[i]);
        return s + " fetch the next block into a second buffer at vmem " + text::hex(secondBuffer) +
               " at the top of " + (pcs.size() == 1 ? "its loop" : "their loops") + " (s" + std::to_string(spareRegister) +
               " holds the other buffer)" + chipList(chips);
    }
    case ChangeKind::RelaxWait: {
        std::string s = "replace the sync.wait at pc " + std::to_string(pc) + " by waits";
        for (std::size_t i = 0; i < pcs.size() && i < targets.size(); ++i)
            s += (i ? ", " : " ") + std::string("for ") + std::to_string(targets[i]) + " before pc " + std::to_string(pcs[i]);
        return s + chipList(chips);
    }
    case ChangeKind::RebalanceEngines: {
        std::string s = "move dma.starts to other engines:";
        for (const auto& [p, e] : engines)
            s += " pc " + std::to_string(p) + "->engine " + std::to_string(e);
        return s + chipList(chips);
    }
    case ChangeKind::MachineParam: return "set " + param + " = " + value;
    case ChangeKind::Regenerate: return "re-generate the kernel with " + param + " = " + value;
    }
    return "?";
}

std::string_view severityName(Severity s)
{
    switch (s) {
    case Severity::Low: return "low";
    case Severity::Medium: return "medium";
    case Severity::High: return "high";
    }
    return "?";
}

std::string_view verdictName(Measurement::Verdict v)
{
    switch (v) {
    case Measurement::Verdict::Improves: return "improves";
    case Measurement::Verdict::NoGain: return "no gain";
    case Measurement::Verdict::OutputsDiffer: return "rejected: outputs differ";
    case Measurement::Verdict::Failed: return "failed";
    case Measurement::Verdict::Cancelled: return "cancelled";
    }
    return "?";
}

} // namespace xps::suggest
