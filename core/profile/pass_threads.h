#pragma once
// Which host threads run a training step's forward and backward passes, as Holistic Trace Analysis finds
// them for its critical path (CPGraph._get_fwd_tid and _get_bwd_tid): the one thread with a CPU operator
// or user annotation whose name contains "forward", and the one with such a slice whose name contains
// "autograd". PyTorch runs the backward pass on its autograd engine's thread while the main thread waits;
// HTA then treats the two threads as one call stack, and so does the critical path here.

#include "profile/profile.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace xps::profile {

// Per event type: does a slice of it mark the forward pass, the backward pass, or neither.
class PassTypes
{
public:
    static constexpr std::uint8_t kForward = 1, kBackward = 2;
    explicit PassTypes(const Profile& profile);
    std::uint8_t of(const Slice& s) const { return m_kinds[s.type]; }

private:
    std::vector<std::uint8_t> m_kinds;
};

// Fed the host slices of a window one by one; names the forward and backward threads when each is exactly
// one thread, both differ and belong to one process (one rank), as HTA merges them.
class PassThreadFinder
{
public:
    void note(const PassTypes& types, const Slice& s)
    {
        if (const std::uint8_t kind = types.of(s)) [[unlikely]] {
            if (kind & PassTypes::kForward)
                m_forward.see(s.track());
            if (kind & PassTypes::kBackward)
                m_backward.see(s.track());
        }
    }
    // (forward, backward) track indexes, or (kNone, kNone) when they are not to be merged.
    std::pair<std::uint32_t, std::uint32_t> threads(const Profile& profile) const;

private:
    struct OneThread
    {
        TrackId track;
        bool several = false;
        void see(TrackId t)
        {
            if (!track.valid())
                track = t;
            else if (track != t)
                several = true;
        }
        bool unique() const { return track.valid() && !several; }
    };
    OneThread m_forward, m_backward;
};

} // namespace xps::profile
