#include "profile/launches.h"

namespace xps::profile {

std::vector<std::uint32_t> launchers(const Profile& p, CancelPoint& cancel)
{
    std::vector<std::uint32_t> launcher(p.slices.size(), kNone);
    for (const Flow& f : p.flows) {
        cancel();
        if (!f.from.valid() || !f.to.valid() || launcher[f.to.value] != kNone)
            continue;
        const SliceClass from = p.classOf(p.slice(f.from));
        if ((from == SliceClass::Runtime || from == SliceClass::RuntimeSync) &&
            isDeviceWork(p.classOf(p.slice(f.to))))
            launcher[f.to.value] = f.from.value;
    }
    return launcher;
}

} // namespace xps::profile
