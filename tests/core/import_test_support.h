#pragma once
// What the importer suites share: fixtures (the hand-worked Kineto step, a Chakra two-rank step, an XProf
// train step), small lookups into an imported profile, and the hostile-mutation loop.
#include "core/chakra_fixture.h"
#include "test_support.h"

#include "import/import.h"
#include "profile/profile_analysis.h"

#include "import/proto/et_def.pb.h"
#include "import/proto/xplane.pb.h"

#include <QTemporaryDir>

#include <zlib.h>

#include <random>
#include <string>
#include <vector>

namespace xps::test::imported {

using profile::Nanos;
using profile::Profile;

inline constexpr Nanos us(Nanos v)
{
    return v * 1000;
}

// `text` gzip-compressed into `path`; false if zlib could not write it.
inline bool writeGzip(const std::string& path, const std::string& text)
{
    gzFile gz = gzopen(path.c_str(), "wb");
    if (!gz)
        return false;
    const bool written =
        gzwrite(gz, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size());
    return gzclose(gz) == Z_OK && written;
}

// The hand-written Kineto step whose analyses tst_profile_analysis works out by hand.
inline std::string fixture()
{
    return test::sourceDir() + "/tests/data/kineto_step.json";
}

// A complete event of a Kineto trace ("correlation" when `corr` is not 0).
inline std::string complete(const char* cat, const char* name, int pid, int tid, int ts, int dur,
                            int corr = 0)
{
    std::string e = std::string(R"({"ph":"X","cat":")") + cat + R"(","name":")" + name + R"(","pid":)" +
                    std::to_string(pid) + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" +
                    std::to_string(ts) + R"(,"dur":)" + std::to_string(dur);
    if (corr != 0)
        e += R"(,"args":{"correlation":)" + std::to_string(corr) + "}";
    return e + "}";
}

inline Profile importText(const QTemporaryDir& dir, const std::string& name, const std::string& json)
{
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    test::writeFile(path, json);
    auto p = importing::importChromeJson(path);
    if (!p)
        qFatal("import of %s failed: %s", name.c_str(), p.error().toString().c_str());
    return std::move(p).value();
}

// One rank of the two-rank step the Chakra tests open (see chakraRanksReplayTheirDependencies).
inline ChakraRank chakraStepRank(int rank)
{
    ChakraRank r;
    r.meta.set_version("0.0.4");
    const auto node = [&](std::uint64_t id, const char* name, ChakraProtoMsg::NodeType type,
                          std::uint64_t micros, std::vector<std::uint64_t> data,
                          std::vector<std::uint64_t> ctrl) {
        ChakraProtoMsg::Node& n = test::addNode(r, id, name, type, micros, data, ctrl);
        if (type == ChakraProtoMsg::COMM_COLL_NODE) {
            auto* t = n.add_attr();
            t->set_name("comm_type");
            t->set_int64_val(ChakraProtoMsg::ALL_REDUCE);
            auto* size = n.add_attr();
            size->set_name("comm_size");
            size->set_int64_val(1 << 20);
        }
    };
    const bool withB = rank == 0;
    node(1, "a", ChakraProtoMsg::COMP_NODE, rank == 0 ? 100 : 200, {}, {});
    if (withB)
        node(2, "b", ChakraProtoMsg::COMP_NODE, 50, {1}, {});
    node(3, "all-reduce", ChakraProtoMsg::COMM_COLL_NODE, 0, {1}, {});
    node(4, "c", ChakraProtoMsg::COMP_NODE, 30,
         withB ? std::vector<std::uint64_t>{2, 3} : std::vector<std::uint64_t>{3}, {});
    return r;
}

// Slices named `name`, in track and time order.
inline std::vector<const profile::Slice*> named(const Profile& p, const std::string& name)
{
    std::vector<const profile::Slice*> out;
    for (const profile::Slice& s : p.slices)
        if (p.nameOf(s) == name)
            out.push_back(&s);
    return out;
}

inline profile::TrackId trackNamed(const Profile& p, const std::string& name)
{
    for (std::uint32_t t = 0; t < p.tracks.size(); ++t)
        if (p.tracks[t].name == name)
            return profile::TrackId(t);
    return {};
}

// A host thread whose train_step (producer 42) launches a TPU module (consumer 42) of three ops: a fusion
// (150 us), an all-reduce after it (100 us) and a copy (50 us); times in picoseconds. One aggregated event.
inline tensorflow::profiler::XSpace trainStepXSpace()
{
    tensorflow::profiler::XSpace space;
    space.add_hostnames("tpu-host-0");
    const auto stat = [](tensorflow::profiler::XPlane* plane, std::int64_t id, const char* name) {
        (*plane->mutable_stat_metadata())[id].set_id(id);
        (*plane->mutable_stat_metadata())[id].set_name(name);
    };
    const auto event = [](tensorflow::profiler::XLine* line, std::int64_t meta, std::int64_t offsetPs,
                          std::int64_t durationPs) {
        auto* e = line->add_events();
        e->set_metadata_id(meta);
        e->set_offset_ps(offsetPs);
        e->set_duration_ps(durationPs);
        return e;
    };
    const auto intStat = [](tensorflow::profiler::XEvent* e, std::int64_t id, std::int64_t v) {
        auto* st = e->add_stats();
        st->set_metadata_id(id);
        st->set_int64_value(v);
    };
    auto* host = space.add_planes();
    host->set_id(1);
    host->set_name("/host:CPU");
    stat(host, 1, "group_id");
    stat(host, 2, "_p");
    stat(host, 3, "_pt");
    (*host->mutable_event_metadata())[1].set_name("train_step");
    auto* python = host->add_lines();
    python->set_id(10);
    python->set_name("python3");
    python->set_timestamp_ns(1000);
    auto* step = event(python, 1, 0, 500'000'000);
    intStat(step, 1, 3);
    intStat(step, 2, 42);
    intStat(step, 3, 1);

    auto* tpu = space.add_planes();
    tpu->set_id(2);
    tpu->set_name("/device:TPU:0");
    stat(tpu, 4, "_c");
    stat(tpu, 5, "_ct");
    stat(tpu, 6, "flops");
    stat(tpu, 7, "hlo_category");
    stat(tpu, 8, "convolution");
    (*tpu->mutable_event_metadata())[1].set_name("jit_train_step");
    (*tpu->mutable_event_metadata())[2].set_name("%fusion.1 = f32[128,128] fusion(...)");
    (*tpu->mutable_event_metadata())[2].set_display_name("fusion.1");
    auto* flops = (*tpu->mutable_event_metadata())[2].add_stats();
    flops->set_metadata_id(6);
    flops->set_double_value(1e9);
    (*tpu->mutable_event_metadata())[3].set_name("all-reduce.7");
    (*tpu->mutable_event_metadata())[4].set_name("copy-start.2");
    auto* modules = tpu->add_lines();
    modules->set_id(1);
    modules->set_name("XLA Modules");
    modules->set_timestamp_ns(1000);
    auto* module = event(modules, 1, 100'000, 400'000'000);
    intStat(module, 4, 42);
    intStat(module, 5, 1);
    auto* ops = tpu->add_lines();
    ops->set_id(2);
    ops->set_name("XLA Ops");
    ops->set_timestamp_ns(1000);
    auto* fusion = event(ops, 2, 100'000, 150'000'000);
    auto* category = fusion->add_stats();
    category->set_metadata_id(7);
    category->set_ref_value(8);
    event(ops, 3, 150'100'000, 100'000'000);
    event(ops, 4, 300'001'500, 50'000'000); // 1.5 ns rounds to 2
    auto* aggregated = ops->add_events();
    aggregated->set_metadata_id(2);
    aggregated->set_num_occurrences(7);

    return space;
}

inline bool hasWarning(const Profile& p, const std::string& part)
{
    for (const std::string& w : p.warningLines())
        if (w.find(part) != std::string::npos)
            return true;
    return false;
}

// 400 mutations of `original` written as `name`: each imports (and its analyses run) or fails with an
// error located in that file; some of each.
template <typename Mutate>
inline void importMutations(const std::string& original, const char* name, std::uint64_t seed, Mutate mutate)
{
    std::mt19937_64 rng(seed);
    QTemporaryDir dir;
    const std::string path = dir.filePath(QString::fromUtf8(name)).toStdString();
    int ok = 0, failed = 0;
    for (int i = 0; i < 400; ++i) {
        std::string s = original;
        mutate(s, rng);
        test::writeFile(path, s);
        auto p = importing::importProfile(path);
        if (p.ok()) {
            ++ok;
            QVERIFY(profile::analyzeProfile(*p).span >= 0);
        } else {
            ++failed;
            QVERIFY2(p.error().location().find(name) != std::string::npos, p.error().toString().c_str());
        }
    }
    QVERIFY(ok > 0 && failed > 0);
}

} // namespace xps::test::imported
