#include "events/store_tracks.h"

namespace xps::events {

std::string rowName(const StoreTrack& track)
{
    switch (track.kind) {
    case RowKind::Regions: return "regions";
    case RowKind::SyncWaits: return "sync waits";
    case RowKind::DmaEngine: return "DMA engine " + std::to_string(track.engine);
    }
    return "?";
}

void fillDmaSlice(StoreSlice& s, const DmaRecord& d, TrackId track)
{
    s.start = d.start;
    s.duration = d.end - d.start;
    s.track = track;
    s.type = d.pc;
    s.link = d.id + 1; // DMA ids stop below 2^32 - 1 (docs/grm.md)
}

void fillDmaRow(DmaRow& row, const DmaRecord& d)
{
    row.dstChip = d.dstChip;
    row.srcSpace = d.srcSpace;
    row.dstSpace = d.dstSpace;
    row.longWay = d.longWay;
    row.convert = d.convert;
    row.srcAddress = d.srcAddress;
    row.dstAddress = d.dstAddress;
    row.bytes = d.bytes;
    row.flag = d.flag;
    row.chunks = d.chunks;
    row.issue = d.issue;
}

DmaRecord dmaOf(const StoreTrack& track, const StoreSlice& s, const DmaRow& row)
{
    DmaRecord d;
    d.id = s.link - 1;
    d.chip = track.chip;
    d.dstChip = row.dstChip;
    d.pc = s.type;
    d.engine = track.engine;
    d.srcSpace = row.srcSpace;
    d.dstSpace = row.dstSpace;
    d.longWay = row.longWay;
    d.convert = row.convert;
    d.srcAddress = row.srcAddress;
    d.dstAddress = row.dstAddress;
    d.bytes = row.bytes;
    d.flag = row.flag;
    d.chunks = row.chunks;
    d.issue = row.issue;
    d.start = s.start;
    d.end = s.end();
    return d;
}

} // namespace xps::events
