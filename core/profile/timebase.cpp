#include "profile/timebase.h"
#include "util/percent_text.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

namespace xps::profile {
namespace {
// A tick count times a numerator below 2^40 needs more than 64 bits (GCC and Clang both have 128).
__extension__ using Wide = __int128;

std::string msText(double ns)
{
    char b[40];
    std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
    return b;
}

std::string usText(double ns)
{
    char b[40];
    std::snprintf(b, sizeof b, "%.1f us", ns / 1e3);
    return b;
}
} // namespace

Timebase Timebase::cyclesAt(double clockMhz)
{
    // ns per cycle = 1000 / MHz = 10^6 / kHz.
    const double khz = std::round(clockMhz * 1000.0);
    if (!(khz >= 1.0 && khz < 1099511627776.0))
        return {};
    const auto den = static_cast<std::int64_t>(khz);
    const std::int64_t num = 1'000'000;
    const std::int64_t g = std::gcd(num, den);
    return {num / g, den / g};
}

Nanos Timebase::toNanos(Ticks ticks) const
{
    if (isNanoseconds())
        return ticks;
    const Wide scaled = static_cast<Wide>(ticks) * nsNumerator;
    const Wide half = nsDenominator / 2;
    const Wide q = scaled >= 0 ? (scaled + half) / nsDenominator : (scaled - half) / nsDenominator;
    if (q > std::numeric_limits<Nanos>::max())
        return std::numeric_limits<Nanos>::max();
    if (q < std::numeric_limits<Nanos>::min())
        return std::numeric_limits<Nanos>::min();
    return static_cast<Nanos>(q);
}

double Timebase::toNanosExact(Ticks ticks) const
{
    if (isNanoseconds())
        return static_cast<double>(ticks);
    return static_cast<double>(ticks) * static_cast<double>(nsNumerator) / static_cast<double>(nsDenominator);
}

Ticks Timebase::fromNanos(Nanos ns) const
{
    return Timebase{nsDenominator, nsNumerator}.toNanos(ns);
}

std::int64_t Timebase::toPicos(Ticks ticks) const
{
    return Timebase{nsNumerator * 1000, nsDenominator}.toNanos(ticks);
}

Ticks Timebase::fromPicos(std::int64_t ps) const
{
    return Timebase{nsDenominator, nsNumerator * 1000}.toNanos(ps);
}

std::string Timebase::ms(Ticks ticks) const
{
    return msText(toNanosExact(ticks));
}

std::string Timebase::us(Ticks ticks) const
{
    return usText(toNanosExact(ticks));
}

std::string Timebase::describe() const
{
    if (isNanoseconds())
        return {};
    return "1 tick = " + std::to_string(nsNumerator) +
           (nsDenominator == 1 ? std::string() : "/" + std::to_string(nsDenominator)) + " ns";
}

std::string formatMs(Nanos ns)
{
    return msText(static_cast<double>(ns));
}

std::string formatUs(Nanos ns)
{
    return usText(static_cast<double>(ns));
}

std::string formatPercent(Ticks part, Ticks whole)
{
    return text::percentText(whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole)
                                       : 0.0);
}

} // namespace xps::profile
