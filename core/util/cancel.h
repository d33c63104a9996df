#pragma once
// Cancelling long work from another thread. A stage that runs for seconds on a large replay (an analysis, a
// proposal rule) polls its stop token and throws Cancelled; the code that started the stage catches it and
// drops whatever the stage had built. An exception, not a status threaded through every helper: the
// analyses are deep call trees of loops, and a stop is the one way out of all of them at once.

#include <chrono>
#include <cstdint>
#include <exception>
#include <stop_token>

namespace xps {

struct Cancelled : std::exception
{
    const char* what() const noexcept override { return "cancelled"; }
    // When the stop was noticed: unwinding frees what the stage had built, which on a large replay takes
    // longer than noticing (bench_cancel reports both).
    std::chrono::steady_clock::time_point thrownAt = std::chrono::steady_clock::now();
};

// Throws Cancelled if `stop` was requested.
inline void throwIfStopped(const std::stop_token& stop)
{
    if (stop.stop_requested()) [[unlikely]]
        throw Cancelled();
}

// A poll cheap enough for the innermost loop of a pass over ten million events: it looks at the token every
// kStride calls (an atomic load), so a loop of a few hundred nanoseconds per item still stops within a
// millisecond or two.
class CancelPoint
{
public:
    explicit CancelPoint(std::stop_token stop) : m_stop(std::move(stop)) {}
    void operator()()
    {
        if ((++m_calls & (kStride - 1)) == 0)
            throwIfStopped(m_stop);
    }

    // `less`, polling this point at each comparison: std::sort over millions of records stops promptly (a
    // throwing comparator leaves the range permuted, which a cancelled stage discards anyway).
    template <typename Less> auto polling(Less less)
    {
        return [this, less](const auto& a, const auto& b) {
            (*this)();
            return less(a, b);
        };
    }

private:
    static constexpr std::uint32_t kStride = 4096;
    std::stop_token m_stop;
    std::uint32_t m_calls = 0;
};

} // namespace xps
