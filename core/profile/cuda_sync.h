#pragma once
// What Kineto's `cuda_sync` events say a CUDA synchronization waited for (PyTorch 2.1 on, with CUDA sync
// events enabled), read as Holistic Trace Analysis reads them for its critical path
// (CPGraph._construct_graph_from_kernels): each event carries its call's correlation and
//
// - "Context Sync" (cudaDeviceSynchronize): the call waited for every stream;
// - "Stream Sync" (cudaStreamSynchronize): for its `stream`;
// - "Event Sync" (cudaEventSynchronize, cudaEventQuery): for the work launched last on `wait_on_stream`
//   before the cudaEventRecord whose correlation is `wait_on_cuda_event_record_corr_id`;
// - "Stream Wait Event" (cudaStreamWaitEvent): not the host, but the next work the same thread launches on
//   `stream` waits for that recorded work (a dependency between two streams).

#include "profile/profile.h"

#include <cstdint>
#include <stop_token>
#include <utility>
#include <vector>

namespace xps::profile {

struct HostWait
{
    enum class On : std::uint8_t { AllStreams, Stream, Work, Nothing };
    std::uint32_t call = kNone; // the runtime call's slice
    On on = On::Nothing;
    TrackId stream;             // On::Stream: the device stream's track
    std::uint32_t work = kNone; // On::Work: the device slice it waited for
};

struct CudaSyncs
{
    std::vector<HostWait> hostWaits;                            // at most one per call, in call order
    std::vector<std::pair<std::uint32_t, std::uint32_t>> waits; // (device work, the work it waited for)
};

// `launcher`: each device slice's runtime call (kNone if none). Empty if the profile has no cuda_sync
// events. Throws Cancelled once `stop` is requested.
CudaSyncs readCudaSyncs(const Profile& profile, const std::vector<std::uint32_t>& launcher,
                        std::stop_token stop = {});

} // namespace xps::profile
