// PyTorch profiler (Kineto) traces that real runs wrote, checked against the numbers the tools that read
// them published (../shared/real-traces; README there): PyTorch's TensorBoard plugin on its ResNet-50
// sample (tb_plugin/test/result_check_file.txt, the HTTP answers its end-to-end test compares).
#include "real_traces_support.h"

#include "profile/critical_path.h"
#include "profile/intervals.h"
#include "profile/profile_analysis.h"
#include "profile/profiler_steps.h"
#include "profile/queue_length.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

using namespace xps;
using nlohmann::json;
using profile::Profile;
using profile::SliceClass;

namespace {

const std::string kTbSample =
    "pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
const std::string kTbGolden = "pytorch__kineto/tb_plugin/test/result_check_file.txt";

// Line `n` (1-based) of the plugin's golden: one HTTP answer as JSON. Lines 1-5 are run
// resnet50_num_workers_0, worker0, span 1: the sample above.
json tbAnswer(int n)
{
    std::istringstream in(test::readMaybeGzip(test::realTrace(kTbGolden)));
    std::string line;
    for (int i = 0; i < n; ++i)
        std::getline(in, line);
    return json::parse(line);
}

// Python's round() of microseconds, as the plugin prints them (halves to even).
long long roundUs(double ns)
{
    return std::llrint(ns / 1000.0);
}

double round2(double v)
{
    return std::nearbyint(v * 100.0) / 100.0;
}

} // namespace

class TestRealKineto : public QObject
{
    Q_OBJECT

private slots:
    // The overview page: every step's time by role and the average step, to the microsecond; the GPU
    // summary's utilization, SM efficiency and achieved occupancy to the plugin's two decimals.
    void tbPluginOverviewIsThePlugins()
    {
        XPS_REQUIRE_REAL_TRACE(test::realTrace(kTbSample));
        XPS_REQUIRE_REAL_TRACE(test::realTrace(kTbGolden));
        const Profile p = test::importRealTrace(test::realTrace(kTbSample));
        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        const profile::StepBreakdown& b = a.stepTimes;
        const json overview = tbAnswer(1);

        // Columns: Step, then (value, tooltip) per role, in the plugin's order.
        std::vector<profile::StepRole> roles;
        const json& columns = overview["steps"]["columns"];
        for (std::size_t c = 1; c < columns.size(); c += 2) {
            const std::string name = columns[c]["name"];
            bool found = false;
            for (std::size_t r = 0; r < profile::kStepRoleCount; ++r)
                if (profile::stepRoleName(static_cast<profile::StepRole>(r)) == name) {
                    roles.push_back(static_cast<profile::StepRole>(r));
                    found = true;
                }
            QVERIFY2(found, name.c_str());
        }
        const json& rows = overview["steps"]["rows"];
        QCOMPARE(b.perStep.size(), rows.size());
        QVERIFY(b.steps.annotated);
        for (std::size_t s = 0; s < rows.size(); ++s) {
            QCOMPARE(b.perStep[s].name, rows[s][0].get<std::string>());
            for (std::size_t r = 0; r < roles.size(); ++r) {
                const auto role = static_cast<std::size_t>(roles[r]);
                QVERIFY(b.present[role]);
                const std::string where =
                    "step " + b.perStep[s].name + " " + std::string(profile::stepRoleName(roles[r]));
                QVERIFY2(roundUs(static_cast<double>(b.perStep[s].role[role])) ==
                             rows[s][1 + 2 * r].get<long long>(),
                         where.c_str());
            }
        }
        // Roles the plugin leaves out of its chart occur nowhere here either (no collectives).
        QVERIFY(!b.present[static_cast<std::size_t>(profile::StepRole::Communication)]);

        const json& average = overview["performance"][0];
        QCOMPARE(roundUs(b.averageTotal), average["value"].get<long long>());
        for (const json& child : average["children"]) {
            std::size_t role = profile::kStepRoleCount;
            for (std::size_t r = 0; r < profile::kStepRoleCount; ++r)
                if (profile::stepRoleName(static_cast<profile::StepRole>(r)) ==
                    child["name"].get<std::string>())
                    role = r;
            QVERIFY2(role < profile::kStepRoleCount, child.dump().c_str());
            QCOMPARE(roundUs(b.averageRole[role]), child["value"].get<long long>());
            QCOMPARE(round2(100 * b.averageRole[role] / b.averageTotal), child["extra"].get<double>());
        }

        // GPU summary: "55.51 %" and its siblings.
        std::map<std::string, std::string> summary;
        for (const json& item : overview["gpu_metrics"]["data"])
            summary[item["title"]] = item["value"];
        QCOMPARE(a.devices.size(), std::size_t{1});
        const profile::DeviceUtilization& u = a.devices[0].kernels;
        const auto percentText = [](double v) {
            std::ostringstream out;
            out << round2(v) << " %";
            return out.str();
        };
        QVERIFY(u.smEfficiency && u.occupancyPct);
        QCOMPARE(percentText(100 * u.utilization), summary["GPU Utilization"]);
        QCOMPARE(percentText(100 * *u.smEfficiency), summary["Est. SM Efficiency"]);
        QCOMPARE(percentText(*u.occupancyPct), summary["Est. Achieved Occupancy"]);
    }

    // The kernel table (line 4): every kernel name's calls and total, mean, max and min duration in
    // microseconds, over the whole trace.
    void tbPluginKernelTableIsThePlugins()
    {
        XPS_REQUIRE_REAL_TRACE(test::realTrace(kTbSample));
        const Profile p = test::importRealTrace(test::realTrace(kTbSample));
        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        std::map<std::string, const profile::OpStats*> kernels;
        for (const profile::OpStats& o : a.ops)
            if (o.cls == SliceClass::Kernel)
                kernels[p.string(p.types[o.type].name)] = &o;
        const json table = tbAnswer(4)["data"];
        std::map<std::string, std::size_t> column;
        for (std::size_t c = 0; c < table["columns"].size(); ++c)
            column[table["columns"][c]["name"]] = c;
        QCOMPARE(table["rows"].size(), kernels.size());
        for (const json& row : table["rows"]) {
            const std::string name = row[column["Name"]];
            QVERIFY2(kernels.contains(name), name.c_str());
            const profile::OpStats& o = *kernels[name];
            QCOMPARE(static_cast<long long>(o.count), row[column["Calls"]].get<long long>());
            QCOMPARE(roundUs(static_cast<double>(o.total)),
                     row[column["Total Duration (us)"]].get<long long>());
            QCOMPARE(roundUs(static_cast<double>(o.total) / static_cast<double>(o.count)),
                     row[column["Mean Duration (us)"]].get<long long>());
            QCOMPARE(roundUs(static_cast<double>(o.max)), row[column["Max Duration (us)"]].get<long long>());
            QCOMPARE(roundUs(static_cast<double>(o.min)), row[column["Min Duration (us)"]].get<long long>());
        }
        // The kernel view's chart (line 5): the same totals.
        const json chart = tbAnswer(5)["total"]["rows"];
        QCOMPARE(chart.size(), kernels.size());
        for (const json& row : chart)
            QCOMPARE(roundUs(static_cast<double>(kernels.at(row[0].get<std::string>())->total)),
                     row[1].get<long long>());
    }

    // The operator table (line 3): every operator name's calls, host total and self time, and the device
    // time it launched itself and with the operators inside it. An operator whose only nested operator has
    // its name is one call (aten::div inside aten::div: 204 slices, 198 calls).
    void tbPluginOperatorTableIsThePlugins()
    {
        XPS_REQUIRE_REAL_TRACE(test::realTrace(kTbSample));
        const Profile p = test::importRealTrace(test::realTrace(kTbSample));
        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        std::map<std::string, const profile::OpStats*> ops;
        for (const profile::OpStats& o : a.ops)
            if (o.cls == SliceClass::CpuOp)
                ops[p.string(p.types[o.type].name)] = &o;
        const json table = tbAnswer(3)["data"];
        QCOMPARE(table.size(), std::size_t{76});
        for (const json& row : table) {
            const std::string name = row["name"];
            QVERIFY2(ops.contains(name), name.c_str());
            const profile::OpStats& o = *ops[name];
            const auto us = [](profile::Ticks t) { return roundUs(static_cast<double>(t)); };
            const std::vector<long long> ours = {static_cast<long long>(o.count), us(o.total), us(o.self),
                                                 us(o.deviceTime), us(o.deviceTotal)};
            const std::vector<long long> plugin = {
                row["calls"].get<long long>(), row["host_total_duration"].get<long long>(),
                row["host_self_duration"].get<long long>(), row.value("device_self_duration", 0LL),
                row.value("device_total_duration", 0LL)};
            QVERIFY2(ours == plugin,
                     (name + ": calls, host total, host self, device self, device total differ: " +
                      json(ours).dump() + " here, " + json(plugin).dump() + " in the plugin")
                         .c_str());
        }
        // The operator view's charts (line 2): the same four times, of every operator with any.
        const json charts = tbAnswer(2);
        for (const auto& [chart, time] :
             std::vector<std::pair<std::string, profile::Ticks profile::OpStats::*>>{
                 {"device_total_time", &profile::OpStats::deviceTotal},
                 {"device_self_time", &profile::OpStats::deviceTime},
                 {"host_total_time", &profile::OpStats::total},
                 {"host_self_time", &profile::OpStats::self}}) {
            for (const json& row : charts[chart]["rows"]) {
                const std::string name = row[0];
                QVERIFY2(ops.contains(name), name.c_str());
                QVERIFY2(roundUs(static_cast<double>(ops.at(name)->*time)) == row[1].get<long long>(),
                         (chart + ": " + name).c_str());
            }
        }
    }

    // HTA's test_cupti_profiler on its A100 trace in CUPTI range-profiler mode: 77 kernels with counters,
    // each paired with a cudaLaunchKernel in order; the sixth by time is fft2d_r2c_32x32 with
    // smsp__sass_thread_inst_executed_op_fadd_pred_on.sum = 86,114,304, launched under aten::conv2d (top
    // operator) and aten::cudnn_convolution (bottom).
    void cuptiCountersAreHtas()
    {
        const std::string path =
            test::realTrace("facebookresearch__HolisticTraceAnalysis/tests/data/cupti_profiler/"
                            "benchmark_result_924719_1679055439_trace.json.gz");
        XPS_REQUIRE_REAL_TRACE(path);
        const Profile p = test::importRealTrace(path);
        for (const std::string& warning : p.warningLines())
            QVERIFY2(warning.find("CUPTI") == std::string::npos, warning.c_str());
        std::vector<std::pair<profile::SliceRow, profile::SliceRow>> links; // (launch, range)
        for (const profile::Flow& f : p.flows)
            if (p.categoryOf(p.slice(f.to)) == "cuda_profiler_range")
                links.emplace_back(f.from, f.to);
        QCOMPARE(links.size(), std::size_t{77});
        std::sort(links.begin(), links.end(), [&](const auto& a, const auto& b) {
            return p.slice(a.second).start < p.slice(b.second).start;
        });
        const auto [launch, range] = links[5];
        QVERIFY(p.nameOf(p.slice(range)).starts_with("void fft2d_r2c_32x32<"));
        QCOMPARE(p.nameOf(p.slice(launch)), std::string("cudaLaunchKernel"));

        // The counter, as its counter track holds it at the range's start.
        std::optional<double> fadd;
        for (const profile::CounterSample& c : p.counters)
            if (p.track(c.track).name == "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum" &&
                c.time == p.slice(range).start)
                fadd = c.value;
        QVERIFY(fadd);
        QCOMPARE(*fadd, 86114304.0);

        // The launch's operator stack: the cpu_op slices around it on its thread, outermost first.
        std::vector<const profile::Slice*> stack;
        const profile::Slice& call = p.slice(launch);
        const profile::Track& thread = p.track(call.track());
        for (std::uint32_t i = thread.firstSlice; i < thread.firstSlice + thread.sliceCount; ++i) {
            const profile::Slice& s = p.slices[i];
            if (p.categoryOf(s) == "cpu_op" && s.start <= call.start && s.end() >= call.end())
                stack.push_back(&s);
        }
        QVERIFY(!stack.empty());
        QCOMPARE(p.nameOf(*stack.front()), std::string("aten::conv2d"));
        QCOMPARE(p.nameOf(*stack.back()), std::string("aten::cudnn_convolution"));
    }

    // TraceLens's perf report of an 8-rank RCCL training step with activation checkpointing on an MI300X
    // (generate_perf_report_pytorch with detect_recompute; its gpu_timeline.csv): its GPU timeline counts
    // only device work whose launch lies inside a CPU operator (its default include_unlinked_kernels=False),
    // split into work launched under torch.utils.checkpoint's recompute_fn and the rest. Our device breakdown
    // counts all device work (docs/import.md); restricted as TraceLens restricts it, every row is
    // TraceLens's.
    void traceLensRecomputeTimelineFromTheSameSlices()
    {
        const std::string trace =
            test::realTrace("AMD-AGI__TraceLens/tests/traces/mi300/resnet_act_checkpoint.json.gz");
        const std::string csv =
            test::realTrace("AMD-AGI__TraceLens/tests/traces/mi300/"
                            "resnet_act_checkpoint_recompute_perf_report_csvs/gpu_timeline.csv");
        XPS_REQUIRE_REAL_TRACE(trace);
        XPS_REQUIRE_REAL_TRACE(csv);
        auto tracelens = test::traceLensTimeline(csv); // is_recompute -> type -> ms
        const Profile p = test::importRealTrace(trace);
        std::vector<std::uint32_t> launcher(p.slices.size(), profile::kNone);
        for (const profile::Flow& f : p.flows)
            if (f.from.valid() && f.to.valid() && profile::isDeviceWork(p.classOf(p.slice(f.to))))
                launcher[f.to.value] = f.from.value;
        // Whether a slice on a host thread lies inside one that `pick` accepts.
        const auto insideOf = [&](std::uint32_t row, const auto& pick) {
            const profile::Slice& call = p.slices[row];
            const profile::Track& thread = p.track(call.track());
            for (std::uint32_t i = thread.firstSlice; i < thread.firstSlice + thread.sliceCount; ++i) {
                const profile::Slice& s = p.slices[i];
                if (s.start > call.start)
                    break;
                if (i != row && s.end() >= call.end() && pick(s))
                    return true;
            }
            return false;
        };
        const auto isOperator = [&](const profile::Slice& s) { return p.categoryOf(s) == "cpu_op"; };
        const auto isRecompute = [&](const profile::Slice& s) {
            const std::string& name = p.nameOf(s);
            return p.categoryOf(s) == "python_function" &&
                   name.find("torch/utils/checkpoint.py") != std::string::npos &&
                   name.find("recompute_fn") != std::string::npos;
        };
        struct Set
        {
            profile::Intervals compute, communication, memcpy, all;
        };
        std::map<std::string, Set> sets;
        std::size_t linked = 0, unlinked = 0;
        for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
            const profile::Slice& s = p.slices[i];
            const SliceClass c = p.classOf(s);
            if (!profile::isDeviceWork(c))
                continue;
            if (launcher[i] == profile::kNone || !insideOf(launcher[i], isOperator)) {
                ++unlinked;
                continue;
            }
            ++linked;
            Set& set = sets[insideOf(launcher[i], isRecompute) ? "True" : "False"];
            const std::pair<profile::Ticks, profile::Ticks> span{s.start, s.end()};
            (c == SliceClass::Communication ? set.communication
             : c == SliceClass::Memcpy      ? set.memcpy
                                            : set.compute) // TraceLens counts memsets as computation
                .push_back(span);
            set.all.push_back(span);
        }
        QVERIFY(linked > 0 &&
                unlinked > 0); // 968 of 3,653 pieces of device work were launched outside operators
        QCOMPARE(sets.size(), std::size_t{2});
        const auto ms = [](profile::Ticks ns) { return static_cast<double>(ns) / 1e6; };
        for (auto& [recompute, set] : sets) {
            const profile::Intervals compute = profile::merged(set.compute),
                                     communication = profile::merged(set.communication),
                                     memcpy = profile::merged(set.memcpy), all = profile::merged(set.all);
            const profile::Ticks span = all.back().second - all.front().first;
            const std::map<std::string, double> ours = {
                {"computation_time", ms(profile::total(compute))},
                {"total_comm_time", ms(profile::total(communication))},
                {"exposed_comm_time", ms(profile::total(profile::subtracted(communication, compute)))},
                {"total_memcpy_time", ms(profile::total(memcpy))},
                {"exposed_memcpy_time", ms(profile::total(profile::subtracted(
                                            profile::subtracted(memcpy, compute), communication)))},
                {"busy_time", ms(profile::total(all))},
                {"total_time", ms(span)},
                {"idle_time", ms(span - profile::total(all))}};
            QCOMPARE(ours.size(), tracelens[recompute].size());
            for (const auto& [type, value] : ours) {
                // TraceLens sums float microseconds near 10^12: its rows drift by up to 25 ns here.
                QVERIFY2(std::abs(value - tracelens[recompute].at(type)) < 3e-5,
                         (type + " is_recompute=" + recompute + ": " + std::to_string(value) + " here, " +
                          std::to_string(tracelens[recompute].at(type)) + " in TraceLens")
                             .c_str());
            }
        }
    }

    // HTA's test_generate_trace_with_counters on its A100 rank-0 trace of a 16-rank NCCL job: the queue
    // length of every stream never reads negative, and its summary has 6 rows, one per stream with launched
    // work.
    void queueLengthsAreHtas()
    {
        const std::string path = test::realTrace(
            "facebookresearch__HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/"
            "rank0.json.gz");
        XPS_REQUIRE_REAL_TRACE(path);
        Profile p = test::importRealTrace(path);
        const std::size_t before = p.tracks.size();
        profile::addQueueLengthCounters(p);
        QCOMPARE(p.tracks.size() - before, std::size_t{6});
        std::map<std::uint32_t, double> last;
        std::size_t samples = 0;
        for (const profile::CounterSample& c : p.counters) {
            if (c.track.value < before)
                continue;
            QVERIFY2(c.value >= 0, p.track(c.track).name.c_str());
            last[c.track.value] = c.value;
            ++samples;
        }
        QVERIFY(samples > 6000);                // a change at each of thousands of launches and starts
        for (const auto& [track, value] : last) // every launched piece of work started
            QVERIFY2(value == 0, p.track(profile::TrackId(track)).name.c_str());
        // Imported again after an export, the counters are not doubled.
        profile::addQueueLengthCounters(p);
        QCOMPARE(p.tracks.size() - before, std::size_t{6});
    }

    // HTA's test_trace_filter on ranks 0 and 1 of a 128-rank NCCL job (event subsets of the real traces):
    // its TimeRangeFilter keeps the events that lie wholly inside the range (start at or after its start,
    // end at or before its end), 93 of rank 0's; IterationFilter([551]) finds iteration 551, the
    // ProfilerStep#551 annotation; NameFilter("^nccl") finds NCCL work; each file says its rank.
    void traceFilterIsHtas()
    {
        const std::string dir = "facebookresearch__HolisticTraceAnalysis/tests/data/trace_filter/";
        const std::string rank0 = test::realTrace(dir + "sampled_rank-0.json.gz"),
                          rank1 = test::realTrace(dir + "sampled_rank-1.json.gz");
        XPS_REQUIRE_REAL_TRACE(rank0);
        XPS_REQUIRE_REAL_TRACE(rank1);
        const Profile p = test::importRealTrace(rank0);
        const profile::Ticks from = p.timebase.fromNanos(1682725898237042LL * 1000),
                             to = p.timebase.fromNanos(1682725898240570LL * 1000);
        const auto inside = std::count_if(p.slices.begin(), p.slices.end(), [&](const profile::Slice& s) {
            return s.start >= from && s.end() <= to;
        });
        QCOMPARE(inside, std::ptrdiff_t{93});
        const profile::ProfilerSteps steps = profile::profilerSteps(p);
        QVERIFY(std::any_of(steps.steps.begin(), steps.steps.end(),
                            [](const profile::ProfilerStep& s) { return s.name == "551"; }));
        QVERIFY(std::any_of(p.slices.begin(), p.slices.end(),
                            [&](const profile::Slice& s) { return p.nameOf(s).starts_with("nccl"); }));
        // The rank each file says it is (its distributedInfo, kept as the profile's metadata).
        const auto rankOf = [](const Profile& profile) {
            for (const auto& [key, value] : profile.metadata)
                if (key == "distributedInfo")
                    return nlohmann::json::parse(value, nullptr, false).value("rank", -1);
            return -2;
        };
        QCOMPARE(rankOf(p), 0);
        QCOMPARE(rankOf(test::importRealTrace(rank1)), 1);
    }

    // HTA's test_amd_trace on a ROCm 6.2 (roctracer) trace of an MI250: its 14 kernels and 2 copies on one
    // device stream, every one linked to the HIP call that launched it, and the critical path of
    // ProfilerStep#1 found (HTA's test asserts that it is).
    void rocmTraceStreamsAndPath()
    {
        const std::string path = test::realTrace("facebookresearch__HolisticTraceAnalysis/tests/data/"
                                                 "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
        XPS_REQUIRE_REAL_TRACE(path);
        const Profile p = test::importRealTrace(path);
        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        QCOMPARE(a.streams.size(), std::size_t{1});
        QCOMPARE(a.streams[0].items, std::uint64_t{16});
        QCOMPARE(a.launch.launches, std::uint64_t{16});
        const auto window = profile::windowOfSlice(p, "ProfilerStep#1");
        QVERIFY(window);
        const profile::CriticalPath path1 = profile::computeCriticalPath(p, *window);
        QVERIFY(path1.length > 0 && !path1.segments.empty());
    }
};

QTEST_GUILESS_MAIN(TestRealKineto)
#include "tst_real_kineto.moc"
