#include "profile/pass_threads.h"

namespace xps::profile {

PassTypes::PassTypes(const Profile& profile) : m_kinds(profile.types.size(), 0)
{
    for (std::size_t t = 0; t < profile.types.size(); ++t) {
        const EventType& type = profile.types[t];
        const std::string& category = profile.string(type.category);
        if (category != "cpu_op" && category != "user_annotation")
            continue;
        const std::string& name = profile.string(type.name);
        if (name.find("forward") != std::string::npos)
            m_kinds[t] |= kForward;
        if (name.find("autograd") != std::string::npos)
            m_kinds[t] |= kBackward;
    }
}

std::pair<std::uint32_t, std::uint32_t> PassThreadFinder::threads(const Profile& profile) const
{
    if (!m_forward.unique() || !m_backward.unique() || m_forward.track == m_backward.track ||
        profile.processOf(m_forward.track) != profile.processOf(m_backward.track))
        return {kNone, kNone};
    return {m_forward.track.value, m_backward.track.value};
}

} // namespace xps::profile
