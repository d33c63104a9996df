// An XProf XSpace gives the numbers XProf's own op statistics give: device events on the device clock
// (device_offset_ps / device_duration_ps), XLA ops classified by hlo_category (an async copy is a copy, not
// compute), an async copy's bytes counted once and its transfer spanning start -> done, the HLO text kept,
// every plane its own process with the devices first, and per-device rows in the operations table.
//
// The profile below is built with the stat names, line names and XFlow encoding that real TPU profiles use
// (xprof's xplane_schema: "XLA Ops", "Async XLA Ops", hlo_category, hlo_op, bytes_accessed, flow with the
// direction in its low two bits). No real TPU profile is in tests/data: see docs/import.md.
#include "core/import_test_support.h"
#include "core/round_trip.h"
#include "core/xspace_fixture.h"
#include "test_support.h"

#include "export/chrome_trace.h"
#include "import/import.h"
#include "import/xplane_ops.h"
#include "profile/profile_analysis.h"
#include "profile/profile_report.h"
#include "profile/transfers.h"

#include "import/proto/xplane.pb.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QTemporaryDir>

#include <set>

using namespace xps;
using profile::Nanos;
using profile::Profile;
using profile::SliceClass;
using test::imported::hasWarning;
using test::imported::importMutations;
using test::imported::named;
using test::imported::trackNamed;
using test::imported::trainStepXSpace;
using test::imported::writeGzip;
namespace tp = tensorflow::profiler;
using test::PlaneBuilder;
using test::twoCoreStep;

namespace {

constexpr Nanos us(Nanos v)
{
    return v * 1000;
}

Profile importSpace(const tp::XSpace& space)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("tpu.xplane.pb")).toStdString();
    test::writeFile(path, space.SerializeAsString());
    auto p = importing::importProfile(path);
    if (!p.ok())
        qFatal("%s", p.error().toString().c_str());
    return std::move(*p);
}

profile::TrackId processNamed(const Profile& p, const std::string& name)
{
    for (std::uint32_t t = 0; t < p.tracks.size(); ++t)
        if (p.tracks[t].kind == profile::TrackKind::Process && p.tracks[t].name == name)
            return profile::TrackId(t);
    return {};
}

std::vector<profile::SliceRow> slicesNamed(const Profile& p, const std::string& name,
                                           profile::TrackId process)
{
    std::vector<profile::SliceRow> out;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i)
        if (p.nameOf(p.slices[i]) == name && p.track(p.slices[i].track()).parent == process)
            out.push_back(profile::SliceRow(i));
    return out;
}

} // namespace

class TestImportXSpace : public QObject
{
    Q_OBJECT
private slots:
    void deviceEventsAreOnTheDeviceClock()
    {
        const Profile p = importSpace(twoCoreStep());
        const profile::TrackId core0 = processNamed(p, "/device:TPU:0");
        const auto fusions = slicesNamed(p, "fusion.1", core0);
        QCOMPARE(fusions.size(), std::size_t(2));
        // The first sits where the host saw it (line 1 ms + 2 us); the second 100 us later by the device
        // clock, not 100 us later by the host's; both last the device's 10 us, not the host's 12.
        QCOMPARE(p.slice(fusions[0]).start, Nanos(1'000'000) + us(2));
        QCOMPARE(p.slice(fusions[1]).start, Nanos(1'000'000) + us(102));
        QCOMPARE(p.slice(fusions[0]).duration, us(10));
        QCOMPARE(p.slice(fusions[1]).duration, us(10));
        // The device clock's stats are the time, not arguments of every event.
        QVERIFY(p.argsOf(fusions[0]).find("device_offset_ps") == std::string::npos);
        bool said = false;
        for (const auto& [key, value] : p.metadata)
            said = said || (key == "device clock" && value.find("device_offset_ps") != std::string::npos);
        QVERIFY(said);
    }

    void anAsyncCopyIsACopyNotCompute()
    {
        QCOMPARE(importing::classifyXProfEvent("/device:TPU:1", "Async XLA Ops", "async-copy", "copy-start"),
                 SliceClass::Memcpy);
        QCOMPARE(importing::classifyXProfEvent("/device:TPU:0", "XLA Ops", "fusion.3", "all-reduce fusion"),
                 SliceClass::Communication);
        // A synchronous copy is a layout change the core computes ("data formatting" in XProf).
        QCOMPARE(importing::classifyXProfEvent("/device:TPU:0", "XLA Ops", "copy.5", "data formatting"),
                 SliceClass::Kernel);
        QCOMPARE(importing::classifyXProfEvent("/device:TPU:0", "XLA Ops", "copy-start.2"),
                 SliceClass::Memcpy);

        const Profile p = importSpace(twoCoreStep());
        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        QCOMPARE(a.devices.size(), std::size_t(2));
        const auto& core0 = a.devices[0].name == "/device:TPU:0" ? a.devices[0] : a.devices[1];
        const auto& core1 = a.devices[0].name == "/device:TPU:1" ? a.devices[0] : a.devices[1];
        // Identical compute on identical cores (the async copy once made core 1's 110 us against 20).
        QCOMPARE(core0.compute, us(20));
        QCOMPARE(core1.compute, us(20));
        // Core 1's copy runs from 10 to 100 us: none of it under compute.
        QCOMPARE(core1.memcpy, us(90));
        QCOMPARE(core1.memcpyExposed(), us(90));
        // Active span: first to last device work; idle within it is TraceLens's and HTA's idle.
        QCOMPARE(core1.activeSpan(), us(110));
        QCOMPARE(core1.activeIdle(), us(0));
        QCOMPARE(core0.activeSpan(), us(110));
        QCOMPARE(core0.activeIdle(), us(110) - core0.busy);
    }

    void anAsyncCopyIsOneTransferFromStartToDone()
    {
        const Profile p = importSpace(twoCoreStep());
        const profile::TrackId core0 = processNamed(p, "/device:TPU:0");
        const std::vector<profile::Transfer> transfers = profile::findTransfers(p);
        std::vector<profile::Transfer> onCore0;
        for (const profile::Transfer& t : transfers)
            if (p.track(p.slice(t.slice).track()).parent == core0)
                onCore0.push_back(t);
        // Two copies, not four: each counted on its start, spanning to the end of its done.
        QCOMPARE(onCore0.size(), std::size_t(2));
        const profile::Transfer& flowPaired =
            p.nameOf(p.slice(onCore0[0].slice)) == "copy-start.3" ? onCore0[0] : onCore0[1];
        const profile::Transfer& namePaired = &flowPaired == &onCore0[0] ? onCore0[1] : onCore0[0];
        QCOMPARE(p.nameOf(p.slice(flowPaired.slice)), std::string("copy-start.3"));
        QCOMPARE(flowPaired.bytes, std::uint64_t(4 << 20));
        QCOMPARE(flowPaired.end - flowPaired.start, us(62)); // 20 us -> 82 us
        QCOMPARE(p.nameOf(p.slice(namePaired.slice)), std::string("copy-start.4"));
        QCOMPARE(namePaired.end - namePaired.start, us(31)); // 30 us -> 61 us

        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        const auto& d = profile::TrackId(a.devices[0].process) == core0 ? a.devices[0] : a.devices[1];
        QCOMPARE(d.transfers, std::uint64_t(2));
        QCOMPARE(d.transferBytes, std::uint64_t(5 << 20));
        // Bandwidth: 4 MiB over 62 us and 1 MiB over 31 us, spread over their spans, sum to the bytes.
        const auto series = profile::transferBandwidth(p, transfers, p.startTime(), p.endTime(), 1000);
        double bytes = 0;
        const double binNs = static_cast<double>(p.endTime() - p.startTime()) / 1000;
        for (const auto& s : series)
            for (const double gbps : s.gbPerSecond)
                bytes += gbps * binNs;
        QVERIFY2(std::abs(bytes - (5 << 20)) < 1.0, std::to_string(bytes).c_str());
    }

    void theHloTextIsKeptAndEveryPlaneIsItsOwnProcess()
    {
        const Profile p = importSpace(twoCoreStep());
        const profile::TrackId core0 = processNamed(p, "/device:TPU:0");
        const profile::TrackId core1 = processNamed(p, "/device:TPU:1");
        const profile::TrackId host = processNamed(p, "/host:CPU");
        QVERIFY(core0.valid() && core1.valid() && host.valid());
        // Three planes with id 0: three processes with three pids, devices sorted first.
        QVERIFY(p.track(core0).pid != p.track(core1).pid);
        QVERIFY(p.track(core0).pid != p.track(host).pid && p.track(core1).pid != p.track(host).pid);
        QVERIFY(p.track(core0).sortIndex < p.track(core1).sortIndex);
        QVERIFY(p.track(core1).sortIndex < p.track(host).sortIndex);
        const auto fusion = slicesNamed(p, "fusion.1", core0);
        const auto args = nlohmann::json::parse(p.argsOf(fusion[0]));
        QCOMPARE(args.value("long_name", std::string()),
                 std::string("%fusion.1 = f32[1024,1024]{1,0} fusion(f32[1024,1024]{1,0} %p0), kind=kLoop"));
        QCOMPARE(args.value("hlo_category", std::string()), std::string("loop fusion"));

        // The Chrome export keeps the three processes apart.
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("tpu.json")).toStdString();
        QVERIFY(exporting::writeChromeTrace(p, path).ok());
        const auto j = nlohmann::json::parse(test::readFile(path));
        std::set<std::int64_t> pids;
        for (const auto& e : j["traceEvents"])
            if (e.value("ph", "") == "M" && e.value("name", "") == "process_name")
                pids.insert(e["pid"].get<std::int64_t>());
        QCOMPARE(pids.size(), std::size_t(3));
    }

    void anExportReimportsAsTheSameProfile()
    {
        const Profile p = importSpace(twoCoreStep());
        const std::string difference = test::roundTripDifference(p);
        QVERIFY2(difference.empty(), difference.c_str());
    }

    void manyPlanesWithOneIdGetTheirOwnPidsInLinearTime()
    {
        // 20,000 planes all with id 7: a search from the id up for each would be 200 M steps.
        tp::XSpace space;
        for (int k = 0; k < 20'000; ++k) {
            auto* plane = space.add_planes();
            plane->set_id(7);
            plane->set_name("/host:CPU " + std::to_string(k));
        }
        QElapsedTimer timer;
        timer.start();
        const Profile p = importSpace(space);
        QVERIFY2(timer.elapsed() < 5'000, std::to_string(timer.elapsed()).c_str());
        std::set<std::int64_t> pids;
        for (const profile::Track& t : p.tracks)
            if (t.kind == profile::TrackKind::Process)
                pids.insert(t.pid);
        QCOMPARE(pids.size(), std::size_t(20'000));
        QVERIFY(pids.count(7) == 1);
    }

    void theSameOpOnTwoCoresIsTwoRowsWithTheirDeviceTime()
    {
        const Profile p = importSpace(twoCoreStep());
        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        std::vector<const profile::OpStats*> fusionRows;
        for (const profile::OpStats& o : a.ops)
            if (p.string(p.types[o.type].name) == "fusion.1")
                fusionRows.push_back(&o);
        QCOMPARE(fusionRows.size(), std::size_t(2));
        QVERIFY(fusionRows[0]->process != fusionRows[1]->process);
        for (const profile::OpStats* o : fusionRows) {
            QCOMPARE(o->count, std::uint64_t(2));
            QCOMPARE(o->total, us(20));
            QCOMPARE(o->deviceTime, us(20));
        }
        // The text and JSON reports name the device of each row and both spans of each device.
        const std::string text = profile::formatProfileAnalysis(p, a, 20);
        QVERIFY2(text.find("/device:TPU:1") != std::string::npos, text.c_str());
        QVERIFY2(text.find("of its active span") != std::string::npos, text.c_str());
        const nlohmann::json j = profile::profileAnalysisJson(p, a, 20);
        QVERIFY(j["devices"][0].contains("active_span_ns"));
        QVERIFY(j["devices"][0].contains("memcpy_exposed_tracelens_ns"));
        bool named = false;
        for (const auto& o : j["ops"])
            named = named || (o["name"] == "fusion.1" && o["device"] == "/device:TPU:1");
        QVERIFY(named);
    }

    void xprofXSpace()
    {
        const tensorflow::profiler::XSpace space = trainStepXSpace();
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("run.xplane.pb")).toStdString();
        test::writeFile(path, space.SerializeAsString());
        auto kind = importing::detectInput(path);
        QVERIFY(kind.ok() && *kind == importing::InputKind::XSpace);
        auto p = importing::importProfile(path);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->format, std::string("XProf XSpace (xplane.pb)"));
        QVERIFY(!p->track(trackNamed(*p, "/host:CPU")).device);
        QVERIFY(p->track(trackNamed(*p, "/device:TPU:0")).device);
        const auto fusionSlice = named(*p, "fusion.1");
        QCOMPARE(fusionSlice.size(), std::size_t(1));
        QCOMPARE(fusionSlice[0]->start, Nanos(1100));
        QCOMPARE(fusionSlice[0]->duration, us(150));
        QCOMPARE(p->classOf(*fusionSlice[0]), profile::SliceClass::Kernel);
        QCOMPARE(p->categoryOf(*fusionSlice[0]), std::string("XLA Ops"));
        QCOMPARE(p->args(fusionSlice[0]->args),
                 std::string(R"j({"flops":1000000000,"long_name":"%fusion.1 = f32[128,128] fusion(...)",)j"
                             R"j("hlo_category":"convolution"})j"));
        QCOMPARE(p->classOf(*named(*p, "all-reduce.7")[0]), profile::SliceClass::Communication);
        QCOMPARE(p->classOf(*named(*p, "copy-start.2")[0]), profile::SliceClass::Memcpy);
        QCOMPARE(named(*p, "copy-start.2")[0]->start, Nanos(1000 + 300'002));
        QCOMPARE(p->classOf(*named(*p, "jit_train_step")[0]), profile::SliceClass::DeviceAnnotation);
        const auto train = named(*p, "train_step");
        QCOMPARE(p->argsOf(profile::SliceRow(static_cast<std::uint32_t>(train[0] - p->slices.data()))),
                 std::string(R"({"group_id":3})"));
        QCOMPARE(p->flows.size(), std::size_t(1));
        QCOMPARE(p->nameOf(p->slice(p->flows[0].from)), std::string("train_step"));
        QCOMPARE(p->nameOf(p->slice(p->flows[0].to)), std::string("jit_train_step"));
        QVERIFY(hasWarning(*p, "1 aggregated events"));

        const profile::ProfileAnalysis a = profile::analyzeProfile(*p);
        QCOMPARE(a.devices.size(), std::size_t(1));
        QCOMPARE(a.devices[0].compute, us(150));
        QCOMPARE(a.devices[0].communicationExposed(), us(100));
        QCOMPARE(a.devices[0].memcpyExposed(), us(50));

        // Planes are read one at a time: a file cut off in its second plane keeps the first and says what
        // was dropped; cut off in its first plane, or not a protobuf at all, it is an error naming the file.
        const std::string bytes = space.SerializeAsString();
        const std::string hostPlane = space.planes(0).SerializeAsString();
        const std::size_t secondPlane = 1 + 1 + hostPlane.size(); // tag, one-byte length, the plane
        QVERIFY(hostPlane.size() < 128);
        test::writeFile(path, bytes.substr(0, secondPlane + 20));
        auto cut = importing::importProfile(path);
        QVERIFY2(cut.ok(), cut.ok() ? "" : cut.error().toString().c_str());
        QVERIFY(hasWarning(*cut, "plane 1 (at byte " + std::to_string(secondPlane)));
        QVERIFY(hasWarning(*cut, "anything after it were dropped"));
        QCOMPARE(named(*cut, "train_step").size(), std::size_t(1));
        QCOMPARE(named(*cut, "fusion.1").size(), std::size_t(0));
        for (const std::size_t length : {secondPlane - 5, std::size_t(3)}) {
            test::writeFile(path, bytes.substr(0, length));
            auto firstCut = importing::importProfile(path);
            QVERIFY(!firstCut.ok());
            QVERIFY2(firstCut.error().message().find("not a valid XProf XSpace") != std::string::npos &&
                         firstCut.error().message().find("plane 0 (at byte 0") != std::string::npos,
                     firstCut.error().toString().c_str());
        }
        test::writeFile(path, "this is not a protobuf at all\n");
        auto text = importing::importProfile(path);
        QVERIFY(!text.ok());
        QVERIFY2(text.error().message().find("not a valid XProf XSpace") != std::string::npos,
                 text.error().toString().c_str());
        test::writeFile(path, "");
        auto empty = importing::importProfile(path);
        QVERIFY(!empty.ok());
        QVERIFY2(empty.error().message().find("the file is empty") != std::string::npos,
                 empty.error().toString().c_str());
        // Gzip-compressed, as some tools store them: the same profile.
        const std::string gzPath = path + ".gz";
        QVERIFY(writeGzip(gzPath, bytes));
        auto compressed = importing::importProfile(gzPath);
        QVERIFY2(compressed.ok(), compressed.ok() ? "" : compressed.error().toString().c_str());
        QCOMPARE(compressed->slices.size(), p->slices.size());
        QCOMPARE(compressed->flows.size(), std::size_t(1));
    }

    void hostileXSpaceMutations()
    {
        // Bit flips, cut-offs, deleted spans and 0xff bytes (varints that never end, lengths of gigabytes) in
        // a protobuf: each imports (what was read whole) or fails naming the file; never a crash or a hang.
        importMutations(trainStepXSpace().SerializeAsString(), "m.xplane.pb", 20261124,
                        [](std::string& s, auto& rng) {
                            for (int edit = 0; edit < 1 + static_cast<int>(rng() % 3) && !s.empty(); ++edit) {
                                const std::size_t at = rng() % s.size();
                                switch (rng() % 4) {
                                case 0: s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8))); break;
                                case 1: s.resize(at); break;
                                case 2: s.erase(at, std::min<std::size_t>(s.size() - at, rng() % 16)); break;
                                case 3: s.insert(at, std::string(1 + rng() % 5, '\xff')); break;
                                }
                            }
                        });
    }
};

QTEST_GUILESS_MAIN(TestImportXSpace)
#include "tst_import_xspace.moc"
