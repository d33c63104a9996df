#include "report/palette.h"

#include <cstdio>
#include <iterator>

namespace xps::palette {

Rgb stallColour(events::StallReason reason)
{
    using R = events::StallReason;
    switch (reason) {
    case R::OperandDependency: return kSkyBlue;
    case R::SyncWait: return kVermillion;
    case R::MxuBusy: return kGreen;
    case R::ResultFifoEmpty: return kPurple;
    case R::ResultFifoFull: return kBlue;
    case R::DmaQueueFull: return kOrange;
    case R::UnitBusy: return kYellow;
    default: return kGrey;
    }
}

Rgb pathKindColour(analysis::PathKind kind)
{
    using K = analysis::PathKind;
    switch (kind) {
    case K::Compute: return kGreen;
    case K::Latency: return kSkyBlue;
    case K::Dma: return kOrange;
    case K::Sync: return kVermillion;
    case K::Structural: return kPurple;
    case K::Branch:
    case K::Count_: break;
    }
    return kGrey;
}

Rgb pathSegmentColour(profile::PathSegmentKind kind)
{
    using K = profile::PathSegmentKind;
    switch (kind) {
    case K::Host: return kSkyBlue;
    case K::Kernel: return kBlue;
    case K::Communication: return kPurple;
    case K::Memcpy: return kOrange;
    case K::LaunchDelay: return kVermillion;
    case K::Sync: return kYellow;
    case K::Idle:
    case K::Count_: break;
    }
    return kGrey;
}

std::string hex(Rgb colour)
{
    char b[8];
    std::snprintf(b, sizeof b, "#%06x", static_cast<unsigned>(colour & 0xFFFFFF));
    return b;
}

Rgb seriesColour(std::size_t index)
{
    static constexpr Rgb kSeries[] = {kBlue, kOrange, kGreen, kPurple, kSkyBlue, kVermillion};
    return kSeries[index % std::size(kSeries)];
}

} // namespace xps::palette
