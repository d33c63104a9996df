#pragma once
// XProf XSpaces built the way real TPU profiles are laid out (xprof's xplane_schema: "XLA Ops", "Async XLA
// Ops", hlo_category, hlo_op, bytes_accessed, device_offset_ps / device_duration_ps, and the XFlow encoding
// of the flow stat), for the import and explorer tests.

#include "import/proto/xplane.pb.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace xps::test {

namespace tp = tensorflow::profiler;

constexpr std::int64_t psOfUs(std::int64_t v)
{
    return v * 1'000'000;
}

// A plane with XProf's stat metadata, and events added by name.
class PlaneBuilder
{
public:
    explicit PlaneBuilder(tp::XPlane* plane) : m_plane(plane)
    {
        for (const char* name : {"device_offset_ps", "device_duration_ps", "hlo_category", "hlo_op",
                                 "bytes_accessed", "flow", "flops"})
            stat(name);
    }
    std::int64_t stat(const std::string& name)
    {
        const auto it = m_stats.find(name);
        if (it != m_stats.end())
            return it->second;
        const auto id = static_cast<std::int64_t>(m_stats.size() + 1);
        (*m_plane->mutable_stat_metadata())[id].set_id(id);
        (*m_plane->mutable_stat_metadata())[id].set_name(name);
        return m_stats[name] = id;
    }
    // Event metadata `name` shown as `display` with a category (a metadata stat, as XProf writes it).
    std::int64_t op(const std::string& name, const std::string& display, const std::string& category)
    {
        const auto id = static_cast<std::int64_t>(m_plane->event_metadata_size() + 1);
        auto& m = (*m_plane->mutable_event_metadata())[id];
        m.set_id(id);
        m.set_name(name);
        m.set_display_name(display);
        if (!category.empty()) {
            auto* st = m.add_stats();
            st->set_metadata_id(stat("hlo_category"));
            st->set_str_value(category);
        }
        return id;
    }
    tp::XLine* line(std::int64_t id, const std::string& name, std::int64_t timestampNs)
    {
        auto* l = m_plane->add_lines();
        l->set_id(id);
        l->set_name(name);
        l->set_timestamp_ns(timestampNs);
        return l;
    }
    tp::XEvent* event(tp::XLine* l, std::int64_t meta, std::int64_t offsetPs, std::int64_t durationPs)
    {
        auto* e = l->add_events();
        e->set_metadata_id(meta);
        e->set_offset_ps(offsetPs);
        e->set_duration_ps(durationPs);
        return e;
    }
    void intStat(tp::XEvent* e, const std::string& name, std::int64_t value)
    {
        auto* st = e->add_stats();
        st->set_metadata_id(stat(name));
        st->set_int64_value(value);
    }
    void uintStat(tp::XEvent* e, const std::string& name, std::uint64_t value)
    {
        auto* st = e->add_stats();
        st->set_metadata_id(stat(name));
        st->set_uint64_value(value);
    }

private:
    tp::XPlane* m_plane;
    std::map<std::string, std::int64_t> m_stats;
};

// XFlow's encoding: direction in bits 0-1 (1 in, 2 out), id above, category in the top bits.
inline std::uint64_t xflow(std::uint64_t id, bool out)
{
    return (std::uint64_t{3} << 58) | (id << 2) | (out ? 2 : 1);
}

// The host's plane as XProf writes it beside the devices: a python3 thread running `call` for `us` at 1 ms.
inline void addHostPlane(tp::XSpace& space, std::int64_t id, const std::string& call, std::int64_t us)
{
    auto* host = space.add_planes();
    host->set_id(id);
    host->set_name("/host:CPU");
    PlaneBuilder h(host);
    (*host->mutable_event_metadata())[1].set_name(call);
    h.event(h.line(1, "python3", 1'000'000), 1, 0, psOfUs(us));
}

// Two TPU cores running the same step: fusion.1 for 10 us at 0 and at 100 us (host view: 12 us, 2 us late;
// the device clock says 10 us), and on core 1 an "Async XLA Ops" line with an async copy from 10 to 100 us.
// Core 0 also copies 4 MiB with copy-start.3 (20 us, 1 us) ... copy-done.3 (80 us, 2 us), paired by flow,
// and 1 MiB with copy-start.4 / copy-done.4 paired by name. All planes have id 0, as XProf often writes.
inline tp::XSpace twoCoreStep()
{
    tp::XSpace space;
    addHostPlane(space, 0, "train_step", 300);

    for (int core = 0; core < 2; ++core) {
        auto* tpu = space.add_planes();
        tpu->set_id(0);
        tpu->set_name("/device:TPU:" + std::to_string(core));
        PlaneBuilder b(tpu);
        const auto fusion =
            b.op("%fusion.1 = f32[1024,1024]{1,0} fusion(f32[1024,1024]{1,0} %p0), kind=kLoop", "fusion.1",
                 "loop fusion");
        auto* ops = b.line(2, "XLA Ops", 1'000'000);
        // Device offsets count from an arbitrary device epoch: 7 s here.
        const std::int64_t epoch = psOfUs(7'000'000);
        for (const std::int64_t at : {0, 100}) {
            auto* e = b.event(ops, fusion, psOfUs(at + 2), psOfUs(12));
            b.intStat(e, "device_offset_ps", epoch + psOfUs(at));
            b.intStat(e, "device_duration_ps", psOfUs(10));
        }
        if (core == 0) {
            const auto start3 = b.op("copy-start.3", "copy-start.3", "copy-start");
            const auto done3 = b.op("copy-done.3", "copy-done.3", "copy-done");
            const auto start4 = b.op("copy-start.4", "copy-start.4", "");
            const auto done4 = b.op("copy-done.4", "copy-done.4", "");
            const auto copy = [&](std::int64_t meta, std::int64_t at, std::int64_t dur, std::int64_t bytes,
                                  std::optional<std::uint64_t> flow) {
                auto* e = b.event(ops, meta, psOfUs(at), psOfUs(dur));
                b.intStat(e, "device_offset_ps", epoch + psOfUs(at));
                b.intStat(e, "device_duration_ps", psOfUs(dur));
                b.intStat(e, "bytes_accessed", bytes);
                if (flow)
                    b.uintStat(e, "flow", *flow);
            };
            copy(start3, 20, 1, 4 << 20, xflow(77, true));
            copy(done3, 80, 2, 4 << 20, xflow(77, false));
            copy(start4, 30, 1, 1 << 20, std::nullopt);
            copy(done4, 60, 1, 1 << 20, std::nullopt);
        } else {
            const auto async = b.op("copy-start.9", "async-copy", "copy-start");
            auto* asyncOps = b.line(3, "Async XLA Ops", 1'000'000);
            auto* e = b.event(asyncOps, async, psOfUs(10), psOfUs(90));
            b.intStat(e, "device_offset_ps", epoch + psOfUs(10));
            b.intStat(e, "device_duration_ps", psOfUs(90));
        }
    }
    return space;
}

} // namespace xps::test
