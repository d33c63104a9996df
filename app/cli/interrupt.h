#pragma once
// Ctrl-C in the CLI stops long work the way the explorer's Cancel button does: while an InterruptScope
// lives, SIGINT requests a stop on its stop source, which the replay, the exports and the imports poll.
// One scope at a time (the CLI runs one command); the previous handler comes back when it ends.

#include <csignal>
#include <stop_token>

namespace xps::cli {

class InterruptScope
{
public:
    InterruptScope() : m_previous(std::signal(SIGINT, &InterruptScope::onInterrupt)) { active() = &m_stop; }
    ~InterruptScope()
    {
        std::signal(SIGINT, m_previous);
        active() = nullptr;
    }
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

    std::stop_token token() const { return m_stop.get_token(); }
    bool interrupted() const { return m_stop.stop_requested(); }

private:
    static std::stop_source*& active()
    {
        static std::stop_source* source = nullptr;
        return source;
    }
    static void onInterrupt(int)
    {
        // With no stop_callback registered on the token (none is), request_stop is atomics only.
        if (std::stop_source* source = active())
            source->request_stop();
    }

    std::stop_source m_stop;
    void (*m_previous)(int);
};

} // namespace xps::cli
