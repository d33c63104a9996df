// XProf XSpace files that real runs wrote (../shared/real-traces; README there): TensorFlow on eight V100s
// (XProf's own demo), JAX on MI300X and MI355X GPUs (TraceLens's test data). The file itself is the
// reference: every device plane a device, every line with events a stream, every event a slice.
#include "real_traces_support.h"

#include "import/proto/xplane.pb.h"
#include "profile/profile_analysis.h"

#include <cmath>
#include <map>
#include <set>
#include <sstream>

using namespace xps;
using profile::Profile;
namespace tp = tensorflow::profiler;

namespace {

tp::XSpace readXSpace(const std::string& path)
{
    tp::XSpace space;
    if (!space.ParseFromString(test::readFile(path)))
        qFatal("%s is not an XSpace", path.c_str());
    return space;
}

// Slices per process track, by the process's name.
std::map<std::string, std::size_t> slicesByProcess(const Profile& p)
{
    std::map<std::string, std::size_t> out;
    for (const profile::Slice& s : p.slices)
        ++out[p.track(p.processOf(s.track())).name];
    return out;
}

// Each /device: plane with events must be a device holding one slice per event, and its lines with events
// its tracks.
// `withEvents` gets the names of the device planes with events.
void checkDevicePlanes(const std::string& path, std::size_t expectedDevices,
                       std::set<std::string>& withEvents)
{
    const tp::XSpace space = readXSpace(path);
    const Profile p = test::importRealTrace(path);
    const std::map<std::string, std::size_t> slices = slicesByProcess(p);
    std::size_t devices = 0;
    for (const tp::XPlane& plane : space.planes()) {
        if (!plane.name().starts_with("/device:GPU:"))
            continue;
        ++devices;
        std::size_t events = 0, lines = 0;
        for (const tp::XLine& line : plane.lines()) {
            events += static_cast<std::size_t>(line.events_size());
            lines += line.events_size() > 0;
        }
        if (events > 0)
            withEvents.insert(plane.name());
        const profile::Track* process = nullptr;
        for (const profile::Track& t : p.tracks)
            if (t.kind == profile::TrackKind::Process && t.name == plane.name())
                process = &t;
        QVERIFY2(process, plane.name().c_str());
        QVERIFY2(process->device, plane.name().c_str());
        const std::size_t imported = slices.contains(plane.name()) ? slices.at(plane.name()) : 0;
        QVERIFY2(imported == events, (plane.name() + ": " + std::to_string(imported) + " slices for " +
                                      std::to_string(events) + " events")
                                         .c_str());
        std::set<std::uint32_t> tracks;
        for (const profile::Slice& sl : p.slices)
            if (&p.track(p.processOf(sl.track())) == process)
                tracks.insert(sl.track().value);
        QVERIFY2(tracks.size() >= lines, (plane.name() + ": " + std::to_string(tracks.size()) +
                                          " tracks for " + std::to_string(lines) + " lines with events")
                                             .c_str());
    }
    QCOMPARE(devices, expectedDevices);
}

} // namespace

class TestRealXSpace : public QObject
{
    Q_OBJECT

private slots:
    // XProf's demo: TensorFlow 2.x on eight V100-class GPUs; three of them ran work (two on their compute and
    // copy streams, with the TensorFlow ops and name scopes XProf draws above them).
    void tensorFlowOnEightGpus()
    {
        const std::string path = test::realTrace(
            "openxla__xprof/demo/plugins/profile/GPU-multi-worker/34.83.195.179_6003.xplane.pb");
        XPS_REQUIRE_REAL_TRACE(path);
        std::set<std::string> ran;
        checkDevicePlanes(path, 8, ran);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(ran, (std::set<std::string>{"/device:GPU:1", "/device:GPU:4", "/device:GPU:6"}));
        // The devices that ran something are busy in the analysis, the others named as idle.
        const Profile p = test::importRealTrace(path);
        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        std::set<std::string> busy;
        for (const profile::DeviceBreakdown& d : a.devices)
            if (d.busy > 0)
                busy.insert(d.name);
        QCOMPARE(busy, ran);
    }

    // JAX on MI300X (TraceLens's jax_conv_minimal, legacy and 0.8 profilers) and a TransformerEngine training
    // step on an MI355X-class GPU.
    void jaxOnAmdGpus()
    {
        for (const auto& [file, gpus] : std::vector<std::pair<std::string, std::size_t>>{
                 {"AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_legacy/"
                  "chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb",
                  8},
                 {"AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb", 8},
                 {"AMD-AGI__TraceLens/tests/test_data_jax_te_fused_attn_categorization/"
                  "934987a2fc2f.xplane.pb",
                  8}}) {
            XPS_REQUIRE_REAL_TRACE(test::realTrace(file));
            std::set<std::string> ran;
            checkDevicePlanes(test::realTrace(file), gpus, ran);
            if (QTest::currentTestFailed())
                return;
            QVERIFY(!ran.empty());
        }
    }

    // TraceLens's JAX perf report of the legacy conv trace (its gpu_timeline.csv, per gpu_pid: the trace's
    // device N is pid N + 1): computation, memcpy, busy, idle and total of the two GPUs that ran anything.
    void jaxConvBreakdownIsTraceLenss()
    {
        const std::string trace =
            test::realTrace("AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_legacy/"
                            "chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb");
        const std::string csv = test::realTrace(
            "AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_perf_report_csvs/gpu_timeline.csv");
        XPS_REQUIRE_REAL_TRACE(trace);
        XPS_REQUIRE_REAL_TRACE(csv);
        const auto tracelens = test::traceLensTimeline(csv); // gpu_pid -> type -> ms
        QCOMPARE(tracelens.size(), std::size_t{2});
        const Profile p = test::importRealTrace(trace);
        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        for (const auto& [pid, row] : tracelens) {
            const std::string name = "/device:GPU:" + std::to_string(std::stoi(pid) - 1);
            const profile::DeviceBreakdown* d = nullptr;
            for (const profile::DeviceBreakdown& b : a.devices)
                if (b.name == name)
                    d = &b;
            QVERIFY2(d, name.c_str());
            const auto ms = [](profile::Ticks ns) { return static_cast<double>(ns) / 1e6; };
            const auto near = [](double x, double y) { return std::abs(x - y) < 1e-6; }; // a nanosecond
            QVERIFY2(near(ms(d->compute + d->memset), row.at("computation_time")), name.c_str());
            QVERIFY2(near(ms(d->memcpy), row.at("total_memcpy_time")), name.c_str());
            QVERIFY2(near(ms(d->memcpyExposedTraceLens()), row.at("exposed_memcpy_time")), name.c_str());
            QVERIFY2(near(ms(d->busy), row.at("busy_time")), name.c_str());
            QVERIFY2(near(ms(d->activeSpan()), row.at("total_time")), name.c_str());
            QVERIFY2(near(ms(d->activeIdle()), row.at("idle_time")), name.c_str());
        }
    }

    // TraceLens's test_jax_te_fused_attn_categorization: the ROCm fills TransformerEngine's fused attention
    // launches (at least 10 __amd_rocclr_fillBufferAligned.kd on the GPU) each carry the HLO op that
    // launched them (args.hlo_op names te_fused_attn), so they go with the attention, not "uncategorized".
    void transformerEngineFillsNameTheirHloOp()
    {
        const std::string path = test::realTrace(
            "AMD-AGI__TraceLens/tests/test_data_jax_te_fused_attn_categorization/934987a2fc2f.xplane.pb");
        XPS_REQUIRE_REAL_TRACE(path);
        const Profile p = test::importRealTrace(path);
        std::size_t fills = 0;
        for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
            const profile::Slice& s = p.slices[i];
            if (p.nameOf(s) != "__amd_rocclr_fillBufferAligned.kd")
                continue;
            ++fills;
            QVERIFY(p.track(s.track()).device);
            const nlohmann::json args = nlohmann::json::parse(p.argsOf(profile::SliceRow(i)));
            QVERIFY2(args.value("hlo_op", std::string()).find("te_fused_attn") != std::string::npos,
                     args.dump().c_str());
        }
        QVERIFY2(fills >= 10, std::to_string(fills).c_str());
    }
};

QTEST_GUILESS_MAIN(TestRealXSpace)
#include "tst_real_xspace.moc"
