#pragma once
// An XProf-shaped XSpace for the benchmarks: a host plane with a step per iteration, then `devices` TPU
// planes, each with an "XLA Modules" line (one module per step) and an "XLA Ops" line of fusions,
// convolutions, all-reduces and copies. Op names and their stats (flops, bytes accessed, hlo_category) are
// event metadata, as XProf writes them; events carry their times and, on the host, a group_id. Written one
// plane at a time (field 1 of XSpace, length-delimited), so the writer never holds the whole space.

#include "import/proto/xplane.pb.h"

#include <google/protobuf/io/coded_stream.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace bench {

inline void putPlane(std::FILE* f, const tensorflow::profiler::XPlane& plane, std::uint64_t& written)
{
    std::string bytes;
    plane.SerializeToString(&bytes);
    std::uint8_t header[16];
    header[0] = (1 << 3) | 2; // field 1, length-delimited
    const std::uint8_t* end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(
        static_cast<std::uint32_t>(bytes.size()), header + 1);
    const auto headerBytes = static_cast<std::size_t>(end - header);
    std::fwrite(header, 1, headerBytes, f);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    written += headerBytes + bytes.size();
}

// Returns the bytes written and sets `events` to the number of events.
inline std::uint64_t writeXSpace(const std::string& path, std::uint64_t targetBytes, int devices,
                                 std::uint64_t& events)
{
    namespace tp = tensorflow::profiler;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::uint64_t written = 0;
    events = 0;
    // About 13 bytes per op event on the wire; four ops per step and device.
    const std::uint64_t steps = targetBytes / (static_cast<std::uint64_t>(devices) * 4 * 13 + 24);
    constexpr std::int64_t kStepPs = 40'000'000; // 40 us
    const char* const kinds[] = {"fusion", "convolution", "all-reduce", "copy-start"};
    constexpr int kOpNames = 1000;

    tp::XPlane host;
    host.set_id(0);
    host.set_name("/host:CPU");
    (*host.mutable_event_metadata())[1].set_name("train_step");
    (*host.mutable_stat_metadata())[1].set_name("group_id");
    tp::XLine* python = host.add_lines();
    python->set_id(1);
    python->set_name("python3");
    python->set_timestamp_ns(1'000'000);
    for (std::uint64_t s = 0; s < steps; ++s) {
        tp::XEvent* e = python->add_events();
        e->set_metadata_id(1);
        e->set_offset_ps(static_cast<std::int64_t>(s) * kStepPs);
        e->set_duration_ps(kStepPs - 1'000'000);
        tp::XStat* group = e->add_stats();
        group->set_metadata_id(1);
        group->set_int64_value(static_cast<std::int64_t>(s));
        ++events;
    }
    putPlane(f, host, written);

    for (int d = 0; d < devices; ++d) {
        tp::XPlane plane;
        plane.set_id(d + 1);
        plane.set_name("/device:TPU:" + std::to_string(d));
        auto& stats = *plane.mutable_stat_metadata();
        const char* const statNames[] = {"",
                                         "flops",
                                         "bytes_accessed",
                                         "hlo_category",
                                         "convolution",
                                         "non-fusion elementwise",
                                         "all-reduce",
                                         "data formatting"};
        for (int id = 1; id < 8; ++id) {
            stats[id].set_id(id);
            stats[id].set_name(statNames[id]);
        }
        auto& metadata = *plane.mutable_event_metadata();
        metadata[1].set_name("jit_train_step");
        for (int op = 0; op < kOpNames; ++op) {
            tp::XEventMetadata& m = metadata[op + 2];
            m.set_id(op + 2);
            const char* kind = kinds[op % 4];
            m.set_name("%" + std::string(kind) + "." + std::to_string(op) + " = f32[1024,1024]{1,0} " + kind +
                       "(f32[1024,1024]{1,0} %p0, f32[1024,1024]{1,0} %p1)");
            m.set_display_name(std::string(kind) + "." + std::to_string(op));
            tp::XStat* flops = m.add_stats();
            flops->set_metadata_id(1);
            flops->set_double_value(2.0 * 1024 * 1024 * 1024);
            tp::XStat* bytes = m.add_stats();
            bytes->set_metadata_id(2);
            bytes->set_uint64_value(3u << 22);
            tp::XStat* category = m.add_stats();
            category->set_metadata_id(3);
            category->set_ref_value(static_cast<std::uint64_t>(4 + op % 4));
        }
        tp::XLine* modules = plane.add_lines();
        modules->set_id(1);
        modules->set_name("XLA Modules");
        modules->set_timestamp_ns(1'000'000);
        tp::XLine* ops = plane.add_lines();
        ops->set_id(2);
        ops->set_name("XLA Ops");
        ops->set_timestamp_ns(1'000'000);
        for (std::uint64_t s = 0; s < steps; ++s) {
            const auto stepStart = static_cast<std::int64_t>(s) * kStepPs + 500'000;
            tp::XEvent* module = modules->add_events();
            module->set_metadata_id(1);
            module->set_offset_ps(stepStart);
            module->set_duration_ps(kStepPs - 2'000'000);
            ++events;
            for (int k = 0; k < 4; ++k) {
                tp::XEvent* op = ops->add_events();
                op->set_metadata_id(
                    2 + static_cast<std::int64_t>((s * 4 + static_cast<std::uint64_t>(k)) % kOpNames));
                op->set_offset_ps(stepStart + k * 9'000'000);
                op->set_duration_ps(8'000'000 + static_cast<std::int64_t>(s % 7) * 100'000);
                ++events;
            }
        }
        putPlane(f, plane, written);
    }
    std::fclose(f);
    return written;
}

} // namespace bench
