#pragma once
// Transfers: memory copies, memsets and communication that says how many bytes it moved, in any profile.
// What the replay's DMA lanes show for DMAs, for an import: the copies of a PyTorch trace (Memcpy HtoD /
// DtoH / DtoD / PtoP with their "bytes"), XProf's copy ops ("bytes_accessed"), Chakra's memory and
// communication nodes ("tensor_size", "comm_size"), and a replay seen as a profile (its DMAs, "bytes").
// Their achieved bandwidth over time is the plot under the lanes.

#include "profile/profile.h"

#include <cstdint>
#include <stop_token>
#include <vector>

namespace xps::profile {

struct Transfer
{
    SliceRow slice;
    std::uint64_t bytes = 0; // 0: the profile does not say
    // When it moved: the slice's own span, or for an asynchronous op (a start joined to its done by a
    // kAsyncPairFlow) from the start's beginning to the done's end.
    Ticks start = 0, end = 0;
};

// Memcpy and memset slices, and communication slices with a byte count, by slice index. The done of an
// asynchronous op is not a transfer of its own: XProf gives its bytes_accessed on both ends, and the
// transfer is its start's.
// Throws Cancelled (util/cancel.h) once `stop` is requested.
std::vector<Transfer> findTransfers(const Profile& profile, std::stop_token stop = {});

// The bytes a slice says it moved: a per-slice argument or a member of its argument set named "bytes",
// "bytes_accessed", "comm_size" or "tensor_size"; 0 if none.
std::uint64_t transferBytes(const Profile& profile, SliceRow slice);

// Achieved bandwidth per device process in `bins` equal parts of [from, to): each transfer's bytes spread
// evenly over [start, end), in GB/s (bytes per nanosecond). Devices without transfers are left out.
struct BandwidthSeries
{
    TrackId process;
    std::vector<double> gbPerSecond;
};
std::vector<BandwidthSeries> transferBandwidth(const Profile& profile, const std::vector<Transfer>& transfers,
                                               Ticks from, Ticks to, int bins);

} // namespace xps::profile
