#pragma once
// What only a replay has, written by the one Chrome exporter (chrome_trace.h) beside the replay's profile
// (analysis/replay_profile.h): per chip a "bundles" row with every issued bundle (its pc, its text) and a
// "stalls" row with every stall, named by its reason; and on each DMA's slice the fields the profile leaves
// out (addresses, the cycle it was issued). Bundles are streamed from the event store's columnar table:
// they never become profile slices (32 bytes each against 24 in the store).

#include "export/chrome_writer.h"

#include "events/event_store.h"
#include "trace/trace.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace xps::exporting {

class ReplayRows
{
public:
    ReplayRows(const trace::Trace& trace, const events::EventStore& store);

    // The events write() writes: what an export's progress counts.
    std::uint64_t eventCount() const { return m_events; }
    // The DMA's fields its profile slice lacks, as `"key":value` pairs joined by commas; empty for an id the
    // replay did not record.
    std::string dmaArgs(std::uint32_t dmaId) const;
    // Adds the rows' tracks to the semantics block as device tracks (and each chip's process where the
    // profile has none), so that a re-import counts their slices as the device's, of class "other": neither
    // compute nor copies, so the re-imported profile's analyses equal the replay's; and as detail tracks
    // (profile::Track::detail), so its operations are the replay's profile's, not one per pc and stall.
    void addDeviceTracks(const profile::Profile& profile, nlohmann::json& semantics) const;
    // Each chip's two rows: names, sort order, then the slices (and the chip's process where the profile has
    // none: a chip that only ran scalar code has no unit, DMA or region row in it).
    void write(ChromeEventWriter& w, const profile::Profile& profile) const;

private:
    bool profileHasProcess(const profile::Profile& profile, int chip) const;

    const trace::Trace& m_trace;
    const events::EventStore& m_store;
    std::vector<events::DmaRecord> m_dmas; // by id
    std::uint64_t m_events = 0;
};

} // namespace xps::exporting
