// Analyses of imported profiles that a real trace showed wrong or missing: an NCCL stream idle between
// collectives is not launch-bound (the top finding of a real NCCL trace proposed CUDA graphs for it), while
// a compute stream with the same pattern is; GPU utilization over time, SM efficiency and achieved occupancy
// as PyTorch's TensorBoard plugin computes them.
#include "core/import_test_support.h"
#include "test_support.h"

#include "import/import.h"
#include "profile/critical_path.h"
#include "profile/gpu_metrics.h"
#include "profile/profile_analysis.h"

#include <QElapsedTimer>
#include <QTemporaryDir>

using namespace xps;
using profile::Nanos;
using profile::Profile;
using test::imported::complete;
using test::imported::fixture;
using test::imported::importText;
using test::imported::named;
using test::imported::us;

namespace {

// A Kineto step: the host launches 12 kernels on `stream` of GPU 0, each 40 us, each launch only after the
// previous kernel ended (60 us gaps); `kernel` names them.
std::string launchPacedStep(const std::string& kernel)
{
    std::string events = R"({"ph":"M","pid":0,"name":"process_name","args":{"name":"GPU 0"}},)"
                         R"({"ph":"M","pid":100,"name":"process_name","args":{"name":"python"}})";
    for (int k = 0; k < 12; ++k) {
        const int launch = k * 100, start = launch + 10;
        events += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":)" +
                  std::to_string(launch) + R"(,"dur":5,"args":{"correlation":)" + std::to_string(k + 1) +
                  "}}";
        events += R"(,{"ph":"X","cat":"kernel","name":")" + kernel + R"(","pid":0,"tid":20,"ts":)" +
                  std::to_string(start) + R"(,"dur":40,"args":{"correlation":)" + std::to_string(k + 1) +
                  "}}";
    }
    return R"({"schemaVersion":1,"traceEvents":[)" + events + "]}";
}

profile::Profile import(const std::string& json)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("step.pt.trace.json")).toStdString();
    test::writeFile(path, json);
    auto p = importing::importProfile(path);
    if (!p.ok())
        qFatal("%s", p.error().toString().c_str());
    return std::move(*p);
}

profile::ProfileAnalysis analyze(const std::string& json)
{
    return profile::analyzeProfile(import(json));
}

// ProfilerStep#1 over 0-1000 us; on GPU 0: k1 0-200 us on stream 7 (0.5 blocks per SM, 40% occupancy), k2
// 100-300 on stream 8 (0.8, 60%), k3 600-700 on stream 7 (2.0, 100%).
std::string kernelsWithEfficiency()
{
    std::string events = R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":100,"tid":1,)"
                         R"("ts":0,"dur":1000})";
    const auto kernel = [&](const char* name, int tid, int ts, int dur, double blocks, double occupancy) {
        events += std::string(R"(,{"ph":"X","cat":"kernel","name":")") + name + R"(","pid":0,"tid":)" +
                  std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
                  std::to_string(dur) + R"(,"args":{"blocks per SM":)" + std::to_string(blocks) +
                  R"(,"est. achieved occupancy %":)" + std::to_string(occupancy) + "}}";
    };
    kernel("k1", 7, 0, 200, 0.5, 40);
    kernel("k2", 8, 100, 200, 0.8, 60);
    kernel("k3", 7, 600, 100, 2.0, 100);
    return R"({"schemaVersion":1,"traceEvents":[)" + events + "]}";
}

bool hasFinding(const profile::ProfileAnalysis& a, const std::string& kind)
{
    for (const profile::ProfileFinding& f : a.findings)
        if (f.kind == kind)
            return true;
    return false;
}

// Two streams and a final synchronize, in two ProfilerStep windows (#1 0-315 us, #2 315-400 us). aten::op1
// (0-10) launches k1 on stream 7 (launch 2-7, k1 10-300); aten::op2 (20-30) launches k2 on stream 8 (22-27,
// k2 30-200); cudaDeviceSynchronize 40-310 waits for both; aten::op3 (320-330) launches k3 on stream 7
// (322-327, k3 330-340).
std::string twoStreamsAndASync()
{
    std::string events =
        R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":100,"tid":1,"ts":0,)"
        R"("dur":315},{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":100,)"
        R"("tid":1,"ts":315,"dur":85})";
    const auto x = [&](const char* cat, const std::string& name, int pid, int tid, int ts, int dur,
                       int corr) {
        events += std::string(R"(,{"ph":"X","cat":")") + cat + R"(","name":")" + name + R"(","pid":)" +
                  std::to_string(pid) + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" +
                  std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
                  (corr ? R"(,"args":{"correlation":)" + std::to_string(corr) + "}}" : std::string("}"));
    };
    x("cpu_op", "aten::op1", 100, 1, 0, 10, 0);
    x("cuda_runtime", "cudaLaunchKernel", 100, 1, 2, 5, 1);
    x("kernel", "k1", 0, 7, 10, 290, 1);
    x("cpu_op", "aten::op2", 100, 1, 20, 10, 0);
    x("cuda_runtime", "cudaLaunchKernel", 100, 1, 22, 5, 2);
    x("kernel", "k2", 0, 8, 30, 170, 2);
    x("cuda_runtime", "cudaDeviceSynchronize", 100, 1, 40, 270, 0);
    x("cpu_op", "aten::op3", 100, 1, 320, 10, 0);
    x("cuda_runtime", "cudaLaunchKernel", 100, 1, 322, 5, 3);
    x("kernel", "k3", 0, 7, 330, 10, 3);
    return R"({"schemaVersion":1,"traceEvents":[)" + events + "]}";
}

std::vector<std::string> namesOn(const profile::Profile& p, const profile::CriticalPath& path)
{
    std::vector<std::string> out;
    for (const profile::PathSegment& s : path.segments)
        out.push_back(std::string(profile::pathSegmentName(s.kind)) + " " + p.nameOf(p.slice(s.slice)));
    return out;
}

// A cuda_sync event as Kineto writes it: on the device (pid 0), its call's correlation, and `args`.
std::string cudaSync(const char* name, int tid, int ts, int dur, int corr, const std::string& args)
{
    return std::string(R"({"ph":"X","cat":"cuda_sync","name":")") + name + R"(","pid":0,"tid":)" +
           std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
           R"(,"args":{"correlation":)" + std::to_string(corr) + "," + args + "}}";
}

// The critical path of a trace of `events` (joined by commas), and what its segments are.
std::pair<profile::CriticalPath, std::vector<std::string>> pathOf(const std::vector<std::string>& events)
{
    std::string joined;
    for (const std::string& e : events)
        joined += (joined.empty() ? "" : ",") + e;
    const profile::Profile p = import(R"({"schemaVersion":1,"traceEvents":[)" + joined + "]}");
    profile::CriticalPath path = profile::analyzeProfile(p).criticalPath;
    std::vector<std::string> names = namesOn(p, path);
    return {std::move(path), std::move(names)};
}

} // namespace

class TestProfileAnalysis : public QObject
{
    Q_OBJECT
private slots:
    void aComputeStreamPacedByItsLaunchesIsLaunchBound()
    {
        const profile::ProfileAnalysis a = analyze(launchPacedStep("sgemm_128x64"));
        QCOMPARE(a.streams.size(), std::size_t(1));
        QVERIFY(!a.streams[0].communication);
        QCOMPARE(a.streams[0].launchBoundGaps, std::uint64_t(11));
        QCOMPARE(a.streams[0].launchIdle, Nanos(11 * 60'000));
        QVERIFY(hasFinding(a, "launch-bound"));
    }

    void anNcclStreamIdleBetweenCollectivesIsNotLaunchBound()
    {
        const profile::ProfileAnalysis a = analyze(launchPacedStep("ncclKernel_AllReduce_RING_LL_Sum_float"));
        QCOMPARE(a.streams.size(), std::size_t(1));
        QVERIFY(a.streams[0].communication);
        QCOMPARE(a.streams[0].idle, Nanos(11 * 60'000));
        QCOMPARE(a.streams[0].launchBoundGaps, std::uint64_t(0));
        QCOMPARE(a.streams[0].launchIdle, Nanos(0));
        QVERIFY(!hasFinding(a, "launch-bound"));
    }

    void gpuUtilizationSmEfficiencyAndOccupancyAsTheTensorBoardPlugin()
    {
        profile::Profile p = import(kernelsWithEfficiency());
        const std::vector<profile::DeviceUtilization> all = profile::deviceUtilization(p);
        QCOMPARE(all.size(), std::size_t(1));
        const profile::DeviceUtilization& u = all[0];
        // Busy 0-300 and 600-700 of the step's 1000 us.
        QCOMPARE(u.utilization, 0.4);
        // Blocks per SM added where kernels overlap, capped at 1: 0.5 x 100 + 1 x 100 + 0.8 x 100 + 1 x 100
        // us, over the step's 1000 us.
        QVERIFY(std::abs(*u.smEfficiency - 0.33) < 1e-9);
        // Occupancy weighted by kernel time: (40 x 200 + 60 x 200 + 100 x 100) / 500.
        QVERIFY(std::abs(*u.occupancyPct - 60.0) < 1e-9);
        // 1000 us in buckets of 10 us (the smallest power of ten making at most 100).
        QCOMPARE(u.bucket, Nanos(10'000));
        QCOMPARE(u.busyFraction.size(), std::size_t(100));
        QCOMPARE(u.busyFraction[0], 1.0);
        QCOMPARE(u.busyFraction[35], 0.0);
        QCOMPARE(u.busyFraction[60], 1.0);

        // The analysis carries them per device; the timeline gets a counter track, once.
        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        QCOMPARE(a.devices[0].kernels.utilization, 0.4);
        profile::addUtilizationCounters(p);
        profile::addUtilizationCounters(p);
        std::size_t tracks = 0, samples = 0;
        for (std::uint32_t t = 0; t < p.tracks.size(); ++t)
            if (p.tracks[t].name == profile::kUtilizationCounter) {
                ++tracks;
                for (const profile::CounterSample& c : p.counters)
                    samples += c.track == profile::TrackId(t);
            }
        QCOMPARE(tracks, std::size_t(1));
        QCOMPARE(samples, std::size_t(101)); // a sample per bucket and a 0 at the end
    }

    void theCriticalPathGoesThroughTheKernelsASynchronizeWaitedFor()
    {
        // HTA's heaviest path: aten::op1 to its launch (2 us), the launch delay (8), k1 (290), which the
        // synchronize waited for (its wait weighs 0), aten::op3 to its launch (2), the delay (8), k3 (10).
        // Through k2 instead it would be 2 + 10 + 2 + 8 + 170 = 192 us to the synchronize, against 300.
        const profile::Profile p = import(twoStreamsAndASync());
        const profile::CriticalPath path = profile::analyzeProfile(p).criticalPath;
        QCOMPARE(path.length, Nanos(320'000));
        QCOMPARE(namesOn(p, path),
                 (std::vector<std::string>{"host aten::op1", "launch delay cudaLaunchKernel", "kernel k1",
                                           "host aten::op3", "launch delay cudaLaunchKernel", "kernel k3"}));
        QCOMPARE(path.byKind[std::size_t(profile::PathSegmentKind::Kernel)], Nanos(300'000));

        // One step alone: ProfilerStep#2 holds aten::op3, its launch and k3: 2 + 8 + 10 us.
        const auto window = profile::windowOfSlice(p, "ProfilerStep#2");
        QVERIFY(window.has_value());
        const profile::CriticalPath step = profile::computeCriticalPath(p, *window);
        QCOMPARE(step.length, Nanos(20'000));
        QCOMPARE(namesOn(p, step),
                 (std::vector<std::string>{"host aten::op3", "launch delay cudaLaunchKernel", "kernel k3"}));
        QVERIFY(!profile::windowOfSlice(p, "ProfilerStep#9").has_value());
    }

    void htasQueueThresholdAndSynchronizeRules()
    {
        // A gap on a stream of 1.5 ms or more is not the stream's delay (HTA's threshold): k1 and k2 2 ms
        // apart are two paths of 10 us, not one of 2.01 ms; 1 ms apart they are one, with 990 us idle.
        const auto apart =
            pathOf({complete("kernel", "k1", 0, 7, 0, 10), complete("kernel", "k2", 0, 7, 2010, 10)});
        QCOMPARE(apart.first.length, Nanos(10'000));
        const auto near =
            pathOf({complete("kernel", "k1", 0, 7, 0, 10), complete("kernel", "k2", 0, 7, 1000, 10)});
        QCOMPARE(near.first.length, Nanos(1'010'000));
        QCOMPARE(near.first.byKind[std::size_t(profile::PathSegmentKind::Idle)], Nanos(990'000));

        // A synchronize waits for k1 even though k1 ended before it was called, so the path runs aten::op1 to
        // its launch (2 us), the launch delay (8), k1 (290), then aten::op2 (500): 800 us. A cudaMemcpyAsync
        // in its place waits for a stream the profile does not name: k1, which ended before it, is not what
        // it waited for; nothing ended while it ran, so it did not wait, and its 5 us are host time (HTA
        // counts a cudaMemcpyAsync whole): the path is the host's 10 + 5 + 500 us.
        const auto around = [](const char* call) {
            return pathOf({complete("cpu_op", "aten::op1", 100, 1, 0, 10),
                           complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 2, 5, 1),
                           complete("kernel", "k1", 0, 7, 10, 290, 1),
                           complete("cuda_runtime", call, 100, 1, 400, 5),
                           complete("cpu_op", "aten::op2", 100, 1, 410, 500)});
        };
        const auto synchronized = around("cudaDeviceSynchronize");
        QCOMPARE(synchronized.first.length, Nanos(800'000));
        QCOMPARE(synchronized.second,
                 (std::vector<std::string>{"host aten::op1", "launch delay cudaLaunchKernel", "kernel k1",
                                           "host aten::op2"}));
        const auto copied = around("cudaMemcpyAsync");
        QCOMPARE(copied.first.length, Nanos(515'000));
        QCOMPARE(copied.first.byKind[std::size_t(profile::PathSegmentKind::Kernel)], Nanos(0));

        // k1 was launched at 0 but started at 20, after k2's launch (10): work was queued behind it, so HTA
        // gives it no launch delay (its queue length at its start is 1). The path is k1 then k2, 20 us, not
        // the 40 us through a launch delay of 20.
        const auto queued =
            pathOf({complete("cpu_op", "aten::op", 100, 1, 0, 16),
                    complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 0, 5, 1),
                    complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 10, 5, 2),
                    complete("kernel", "k1", 0, 7, 20, 10, 1), complete("kernel", "k2", 0, 7, 30, 10, 2)});
        QCOMPARE(queued.first.length, Nanos(20'000));
        QCOMPARE(queued.second, (std::vector<std::string>{"kernel k1", "kernel k2"}));
    }

    void htasBackwardThreadAndStepWindow()
    {
        // HTA runs the autograd thread's backward pass as part of the main thread's call stack (the main
        // thread waits for it): the path is the forward (100 us), the backward (250) and the optimizer (50).
        // Kept apart, the heaviest would be the backward alone.
        const auto training = [](int secondAutogradTid) {
            std::vector<std::string> events = {
                complete("cpu_op", "DistributedDataParallel.forward", 100, 1, 0, 100),
                complete("user_annotation", "## backward ##", 100, 1, 100, 300),
                complete("cpu_op", "Optimizer.step", 100, 1, 400, 50),
                complete("cpu_op", "autograd::engine::evaluate_function: MmBackward0", 100, 2, 120, 250)};
            if (secondAutogradTid != 0)
                events.push_back(
                    complete("cpu_op", "torch::autograd::AccumulateGrad", 100, secondAutogradTid, 500, 1));
            return pathOf(events);
        };
        const auto merged = training(0);
        QCOMPARE(merged.first.length, Nanos(400'000));
        QCOMPARE(merged.second,
                 (std::vector<std::string>{"host DistributedDataParallel.forward",
                                           "host autograd::engine::evaluate_function: MmBackward0",
                                           "host Optimizer.step"}));
        // "autograd" on two threads: HTA cannot tell which is the backward pass and merges nothing.
        QCOMPARE(training(3).first.length, Nanos(250'000));

        // A step's window holds the host work that starts in it and the device work launched from it,
        // wherever that runs: k1, launched at 20, runs until 530, long after the step (0-100) ends, and is
        // its path (10 us to the launch, 10 of launch delay, 500 of kernel). aten::copy_ starts in the step
        // and ends after it. Device work nothing launched (the 1 ms kernel at 600) is on no path in a
        // profile whose launches are linked, as HTA keeps only kernels with a runtime call.
        std::string joined;
        for (const std::string& e :
             {complete("user_annotation", "ProfilerStep#1", 100, 1, 0, 100),
              complete("cpu_op", "aten::mm", 100, 1, 10, 50),
              complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 20, 5, 1),
              complete("kernel", "k1", 0, 7, 30, 500, 1), complete("cpu_op", "aten::copy_", 100, 1, 90, 60),
              complete("kernel", "launched before the profiler", 0, 7, 600, 1000)})
            joined += (joined.empty() ? "" : ",") + e;
        const profile::Profile p = import(R"({"schemaVersion":1,"traceEvents":[)" + joined + "]}");
        const auto step = profile::windowOfSlice(p, "ProfilerStep#1");
        QVERIFY(step.has_value());
        const profile::CriticalPath inStep = profile::computeCriticalPath(p, *step);
        QCOMPARE(inStep.length, Nanos(520'000));
        QCOMPARE(namesOn(p, inStep),
                 (std::vector<std::string>{"host aten::mm", "launch delay cudaLaunchKernel", "kernel k1"}));
        QCOMPARE(profile::computeCriticalPath(p).length, Nanos(520'000));
    }

    void cudaSyncEventsSayWhatACallWaitedFor()
    {
        // cudaStreamSynchronize on stream 7 waits for k1 (ends 310), not for k2 on stream 8 (ends 320):
        // with Kineto's Stream Sync event the path is k1's launch delay, k1, then aten::after (410 us);
        // without it, a synchronize waits for every stream and the path takes k2 (5 + 6 + 308 + 100).
        const auto streamSync = [](bool event) {
            std::vector<std::string> e = {
                complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 0, 5, 1),
                complete("kernel", "k1", 0, 7, 10, 300, 1),
                complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 6, 4, 2),
                complete("kernel", "k2", 0, 8, 12, 308, 2),
                complete("cuda_runtime", "cudaStreamSynchronize", 100, 1, 20, 300, 3),
                complete("cpu_op", "aten::after", 100, 1, 330, 100)};
            if (event)
                e.push_back(cudaSync("Stream Sync", 7, 300, 15, 3, R"("stream":7)"));
            return pathOf(e);
        };
        QCOMPARE(streamSync(false).first.length, Nanos(419'000));
        const auto onSeven = streamSync(true);
        QCOMPARE(onSeven.first.length, Nanos(410'000));
        QCOMPARE(onSeven.second, (std::vector<std::string>{"launch delay cudaLaunchKernel", "kernel k1",
                                                           "host aten::after"}));

        // cudaEventQuery at 600 on the event recorded after k1's launch: k1 had ended (510), and a query
        // alone says nothing of which work it waited for. Its Event Sync names k1, so the path is k1 and
        // then the host (610 us); without it, k1 alone (510) is heavier than the host's 127.
        const auto query = [](bool event) {
            std::vector<std::string> e = {complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 0, 5, 1),
                                          complete("kernel", "k1", 0, 7, 10, 500, 1),
                                          complete("cuda_runtime", "cudaEventRecord", 100, 1, 6, 2, 2),
                                          complete("cpu_op", "aten::other", 100, 1, 10, 20),
                                          complete("cuda_runtime", "cudaEventQuery", 100, 1, 600, 5, 3),
                                          complete("cpu_op", "aten::after", 100, 1, 610, 100)};
            if (event)
                e.push_back(
                    cudaSync("Event Sync", -1, 601, 2, 3,
                             R"("stream":-1,"wait_on_stream":7,"wait_on_cuda_event_record_corr_id":2)"));
            return pathOf(e);
        };
        QCOMPARE(query(false).first.length, Nanos(510'000));
        const auto queried = query(true);
        QCOMPARE(queried.first.length, Nanos(610'000));
        QCOMPARE(queried.second, (std::vector<std::string>{"launch delay cudaLaunchKernel", "kernel k1",
                                                           "host aten::after"}));

        // cudaStreamWaitEvent: the next work launched on stream 8 (k2) waits for the work recorded on stream
        // 7 (k1), so it follows k1 instead of a 499 us launch delay: 10 + 500 + 100.
        const auto waited =
            pathOf({complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 0, 5, 1),
                    complete("kernel", "k1", 0, 7, 10, 500, 1),
                    complete("cuda_runtime", "cudaEventRecord", 100, 1, 6, 2, 2),
                    complete("cuda_runtime", "cudaStreamWaitEvent", 100, 1, 9, 2, 3),
                    cudaSync("Stream Wait Event", 8, 9, 1, 3,
                             R"("stream":8,"wait_on_stream":7,"wait_on_cuda_event_record_corr_id":2)"),
                    complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 12, 3, 4),
                    complete("kernel", "k2", 0, 8, 511, 100, 4)});
        QCOMPARE(waited.first.length, Nanos(610'000));
        QCOMPARE(waited.first.byKind[std::size_t(profile::PathSegmentKind::LaunchDelay)], Nanos(10'000));
        QCOMPARE(waited.second,
                 (std::vector<std::string>{"launch delay cudaLaunchKernel", "kernel k1", "kernel k2"}));
    }

    void manySynchronizingCallsAndStreamsStayLinear()
    {
        // 3,000 cudaStreamSynchronize calls and 3,000 streams with a kernel each: linking every call to every
        // stream would be 9 M probes; past the budget the path is computed without the rest, and says so.
        std::string events;
        for (int k = 0; k < 3000; ++k) {
            events += std::string(k ? "," : "") +
                      R"({"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize",)" +
                      R"("pid":100,"tid":1,"ts":)" + std::to_string(10 * k) + R"(,"dur":5})";
            events += R"(,{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":)" + std::to_string(1000 + k) +
                      R"(,"ts":)" + std::to_string(10 * k + 1) + R"(,"dur":2})";
        }
        QElapsedTimer timer;
        timer.start();
        const profile::ProfileAnalysis a = analyze(R"({"traceEvents":[)" + events + "]}");
        QVERIFY2(timer.elapsed() < 10'000, std::to_string(timer.elapsed()).c_str());
        QVERIFY(a.criticalPath.approximate);
        QVERIFY(a.criticalPath.length > 0);
    }

    void kinetoAnalysis()
    {
        auto p = importing::importProfile(fixture());
        QVERIFY(p.ok());
        const profile::ProfileAnalysis a = profile::analyzeProfile(*p);
        QCOMPARE(a.span, us(1000));
        QCOMPARE(a.devices.size(), std::size_t(1));
        const profile::DeviceBreakdown& d = a.devices[0];
        // Device work: sgemm 40-240, memcpy 250-450, nccl 300-400, relu 520-530, sgemm 700-880, add 960-970.
        QCOMPARE(d.busy, us(200 + 200 + 10 + 180 + 10));
        QCOMPARE(d.compute, us(200 + 10 + 180 + 10));
        QCOMPARE(d.communication, us(100));
        QCOMPARE(d.communicationExposed(), us(100)); // no compute kernel runs 300-400
        QCOMPARE(d.memcpy, us(200));
        QCOMPARE(d.memcpyExposed(), us(200));
        // TraceLens's exposed memcpy also takes off what ran under communication: 300-400 under nccl.
        QCOMPARE(d.memcpyExposedTraceLens(), us(100));
        QCOMPARE(d.idle(), us(400));
        // HTA's and TraceLens's span: first device work (40) to last (970), and idle within it.
        QCOMPARE(d.activeStart, us(40));
        QCOMPARE(d.activeSpan(), us(930));
        QCOMPARE(d.activeIdle(), us(330));
        // Stream 7's gaps: 240-250 (launch issued at 80: not launch-bound), 450-520 (launched at 505),
        // 530-700 (launched at 540), 880-960 (launched at 935): 10 + 70 + 170 + 80, of which 320
        // launch-bound.
        const auto stream = std::find_if(a.streams.begin(), a.streams.end(),
                                         [](const auto& s) { return s.name == "GPU 0 / stream 7"; });
        QVERIFY(stream != a.streams.end());
        QCOMPARE(stream->items, std::uint64_t(5));
        QCOMPARE(stream->idle, us(330));
        QCOMPARE(stream->launchIdle, us(320));
        QCOMPARE(stream->launchBoundGaps, std::uint64_t(3));
        // Launch delays 20, 170, 205, 15, 160, 25 us.
        QCOMPARE(a.launch.launches, std::uint64_t(6));
        QCOMPARE(a.launch.meanDelay, Nanos(595000 / 6));
        QCOMPARE(a.launch.p50Delay, us(160));
        QCOMPARE(a.launch.maxDelay, us(205));
        QCOMPARE(p->nameOf(p->slice(a.launch.maxDelaySlice)),
                 std::string("ncclKernel_AllReduce_RING_LL_Sum_float"));
        // Critical path, HTA's model (heaviest path; top-level gaps on the thread, a blocking call's wait and
        // dependencies weigh 0; ProfilerStep#1 is an annotation, not an operator). Host operators in order:
        // aten::mm 10-60 (50 us), aten::copy_ 70-110 (40 with its cudaMemcpyAsync's 10: no device work
        // ended while the call ran, so it did not wait, and HTA counts its time), aten::relu 500-520 (20),
        // then aten::mm 535 to its launch at 540 (5): 115 us. The launch delay to
        // sgemm 540-700 (160; stream 7 was empty), sgemm 700-880 (180), which cudaDeviceSynchronize waited
        // for (0), aten::add 930 to its launch at 935 (5), launch delay 935-960 (25), add_kernel 960-970
        // (10): 495 us. (The memcpy chain, sgemm 40-240 then the copy to 450, is lighter, and so is the NCCL
        // one.)
        const profile::CriticalPath& path = a.criticalPath;
        QCOMPARE(path.length, us(495));
        QCOMPARE(path.byKind[std::size_t(profile::PathSegmentKind::Host)], us(115 + 5));
        QCOMPARE(path.byKind[std::size_t(profile::PathSegmentKind::Kernel)], us(180 + 10));
        QCOMPARE(path.byKind[std::size_t(profile::PathSegmentKind::LaunchDelay)], us(160 + 25));
        QCOMPARE(path.byKind[std::size_t(profile::PathSegmentKind::Sync)], us(0));
        QCOMPARE(path.segments.front().start, us(10));
        QCOMPARE(path.segments.back().end, us(970));
        // Each call stays identifiable: the segment before the big launch delay is aten::mm's, the delay
        // is its cudaLaunchKernel's.
        const auto delay = std::find_if(path.segments.begin(), path.segments.end(), [](const auto& sg) {
            return sg.kind == profile::PathSegmentKind::LaunchDelay;
        });
        QVERIFY(delay != path.segments.end() && delay != path.segments.begin());
        QCOMPARE(p->nameOf(p->slice(delay->slice)), std::string("cudaLaunchKernel"));
        QCOMPARE(p->nameOf(p->slice(std::prev(delay)->slice)), std::string("aten::mm"));
        // Operations: aten::mm twice (50 + 25 us, minus its two 10 us launches), launching both sgemms.
        const auto op = [&](const std::string& name) {
            for (const profile::OpStats& o : a.ops)
                if (p->string(p->types[o.type].name) == name)
                    return o;
            return profile::OpStats{};
        };
        QCOMPARE(op("aten::mm").count, std::uint64_t(2));
        QCOMPARE(op("aten::mm").total, us(75));
        QCOMPARE(op("aten::mm").self, us(55));
        QCOMPARE(op("aten::mm").deviceTime, us(380));
        QCOMPARE(op("aten::copy_").deviceTime, us(300)); // the copy and the all-reduce it launched
        QCOMPARE(op("ProfilerStep#1").self, us(1000 - 50 - 40 - 20 - 25 - 300 - 20));
        QCOMPARE(a.ops.front().type, named(*p, "ProfilerStep#1")[0]->type); // the largest total first
        // Findings, by estimated savings: exposed copies 200, exposed all-reduce 100, the synchronize that
        // left the device idle 900-960 (60 us = 6% of the run).
        QCOMPARE(a.findings.size(), std::size_t(3));
        QCOMPARE(a.findings[0].kind, std::string("exposed-memcpy"));
        QCOMPARE(a.findings[0].estimatedSavings, us(200));
        QCOMPARE(a.findings[1].kind, std::string("exposed-communication"));
        QCOMPARE(a.findings[2].kind, std::string("host-sync"));
        QCOMPARE(a.findings[2].estimatedSavings, us(60));
    }

    void launchBoundStream()
    {
        // 40 kernels of 2 us, each launched (8 us call) only after the previous one finished: the stream
        // waits for the host; the same kernels launched ahead of time do not.
        QTemporaryDir dir;
        for (const bool ahead : {false, true}) {
            std::string json = R"({"traceEvents":[)";
            for (int k = 0; k < 40; ++k) {
                const int launch = ahead ? k * 3 : k * 12, start = ahead ? 200 + k * 3 : k * 12 + 9;
                json +=
                    (k ? "," : "") +
                    std::string(
                        R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)") +
                    std::to_string(launch) + R"(,"dur":)" + (ahead ? "2" : "8") +
                    R"(,"args":{"correlation":)" + std::to_string(k + 1) +
                    R"(}},{"ph":"X","cat":"kernel","name":"tiny","pid":2,"tid":7,"ts":)" +
                    std::to_string(start) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(k + 1) +
                    "}}";
            }
            json += "]}";
            const Profile p = importText(dir, ahead ? "ahead.json" : "late.json", json);
            QCOMPARE(p.flows.size(), std::size_t(40)); // no ac2g events: launches found by correlation
            const profile::ProfileAnalysis a = profile::analyzeProfile(p);
            const bool found = std::any_of(a.findings.begin(), a.findings.end(),
                                           [](const auto& f) { return f.kind == "launch-bound"; });
            QCOMPARE(found, !ahead);
            if (!ahead) {
                QCOMPARE(a.streams.size(), std::size_t(1));
                QCOMPARE(a.streams[0].launchBoundGaps, std::uint64_t(39));
                QCOMPARE(a.streams[0].launchIdle, us(39 * 10)); // each gap: 11 - 1 ... end 11, next start 21
            }
        }
    }

    void transfersAndTheirBandwidth()
    {
        // The step's one copy (4 MiB HtoD over 200 us on stream 7) is a transfer; the NCCL kernel, which does
        // not say what it moved, is not. Its 4,194,304 bytes over 200,000 ns are 20.97 GB/s while it runs.
        auto p = importing::importProfile(fixture());
        QVERIFY(p.ok());
        const profile::ProfileAnalysis a = profile::analyzeProfile(*p);
        QCOMPARE(a.transfers.size(), std::size_t(1));
        const profile::Slice& copy = p->slice(a.transfers[0].slice);
        QCOMPARE(p->nameOf(copy), std::string("Memcpy HtoD (Pageable -> Device)"));
        QCOMPARE(a.transfers[0].bytes, std::uint64_t(4194304));
        QCOMPARE(profile::transferBytes(*p, a.transfers[0].slice), std::uint64_t(4194304));
        QCOMPARE(a.devices[0].transfers, std::uint64_t(1));
        QCOMPARE(a.devices[0].transferBytes, std::uint64_t(4194304));
        // Four bins over the copy alone: each at the copy's rate. Over the whole step in one bin: the bytes
        // over the step.
        auto bw = profile::transferBandwidth(*p, a.transfers, copy.start, copy.end(), 4);
        QCOMPARE(bw.size(), std::size_t(1));
        QCOMPARE(p->track(bw[0].process).name, std::string("GPU 0"));
        for (const double v : bw[0].gbPerSecond)
            QVERIFY(std::abs(v - 4194304.0 / 200000.0) < 1e-9);
        bw = profile::transferBandwidth(*p, a.transfers, p->startTime(), p->endTime(), 1);
        const double span = static_cast<double>(p->endTime() - p->startTime());
        QVERIFY(std::abs(bw[0].gbPerSecond[0] - 4194304.0 / span) < 1e-9);
        // A window that misses the copy has no series; half a copy in a bin gives half the rate there.
        QVERIFY(profile::transferBandwidth(*p, a.transfers, copy.end(), copy.end() + 1000, 2).empty());
        bw = profile::transferBandwidth(*p, a.transfers, copy.start - 100'000, copy.start + 100'000, 1);
        QVERIFY(std::abs(bw[0].gbPerSecond[0] - 4194304.0 / 200000.0 / 2) < 1e-9);
    }
};

QTEST_GUILESS_MAIN(TestProfileAnalysis)
#include "tst_profile_analysis.moc"
