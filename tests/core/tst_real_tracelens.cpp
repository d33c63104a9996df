// TraceLens's perf-report sheets (generate_perf_report_pytorch) reproduced on the real traces they were
// written for (../shared/real-traces; README there): kernel_summary and the short-kernel study of the
// Falconsai image-detection traces of an H100 and an MI300X, and coll_analysis of an MI300X RCCL trace.
#include "real_traces_support.h"

#include "calibrate/csv_fields.h"
#include "profile/kernel_launchers.h"
#include "profile/launches.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

using namespace xps;
using nlohmann::json;
using profile::Profile;

namespace {

// The durations of a group of device work as TraceLens's summary sheets aggregate them.
struct DurationStats
{
    std::int64_t count = 0;
    profile::Ticks sum = 0, min = INT64_MAX, max = 0;
    void add(profile::Ticks d)
    {
        ++count;
        sum += d;
        min = std::min(min, d);
        max = std::max(max, d);
    }
    // Whether a sheet's count and its sum, min and max in microseconds are these: the trace's microseconds
    // have three decimals, held here in nanoseconds and summed there in floating point.
    bool matches(const std::string& countText, const std::string& sumUs, const std::string& minUs,
                 const std::string& maxUs) const
    {
        return count == std::llround(std::stod(countText)) &&
               std::abs(static_cast<double>(sum) / 1000.0 - std::stod(sumUs)) < 0.001 * count + 1e-6 &&
               std::abs(static_cast<double>(min) / 1000.0 - std::stod(minUs)) < 0.0011 &&
               std::abs(static_cast<double>(max) / 1000.0 - std::stod(maxUs)) < 0.0011;
    }
};

// A Kineto stream track's number as TraceLens writes it ("stream 7 " -> "7").
std::string streamNumber(std::string trackName)
{
    trackName.erase(trackName.find_last_not_of(' ') + 1);
    return trackName.substr(trackName.find_last_of(' ') + 1);
}

// The data rows of a CSV sheet (after its header), each as its fields' text.
std::vector<std::vector<std::string>> sheetRows(const std::string& path)
{
    std::vector<std::vector<std::string>> rows;
    const std::string text = test::readFile(path);
    const std::vector<std::string_view> lines = calibrate::csv::splitLines(text);
    for (std::size_t l = 1; l < lines.size(); ++l) {
        if (lines[l].empty() || lines[l] == "\r")
            continue;
        std::vector<std::string> row;
        for (const calibrate::csv::Field& f : calibrate::csv::splitFields(lines[l]))
            row.emplace_back(f.text);
        rows.push_back(std::move(row));
    }
    return rows;
}

// For every slice: the runtime call that launched it (profile::kNone if none did) and the innermost CPU op
// around that call on its thread, the kernel's "Parent cpu_op" in TraceLens's sheets.
struct Launches
{
    std::vector<std::uint32_t> launcher;
    std::vector<std::optional<std::uint32_t>> parent;
};
Launches launchesOf(const Profile& p)
{
    CancelPoint never{std::stop_token{}};
    Launches l{profile::launchers(p, never), std::vector<std::optional<std::uint32_t>>(p.slices.size())};
    std::map<std::uint32_t, std::vector<std::uint32_t>> opsByTrack;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i)
        if (p.categoryOf(p.slices[i]) == "cpu_op")
            opsByTrack[p.slices[i].track().value].push_back(i);
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        if (l.launcher[i] == profile::kNone)
            continue;
        const profile::Slice& call = p.slices[l.launcher[i]];
        for (const std::uint32_t o : opsByTrack[call.track().value]) {
            const profile::Slice& s = p.slices[o];
            if (s.start <= call.start && s.end() >= call.end() &&
                (!l.parent[i] || s.duration < p.slices[*l.parent[i]].duration))
                l.parent[i] = o;
        }
    }
    return l;
}

// A JSON argument as Python's str() prints it once TraceLens has turned its lists into tuples:
// [[768], [788, 768], []] is "((768,), (788, 768), ())", ["", "1"] is "('', '1')".
std::string pythonText(const json& v)
{
    if (v.is_array()) {
        std::string out = "(";
        for (std::size_t i = 0; i < v.size(); ++i)
            out += (i ? ", " : "") + pythonText(v[i]);
        return out + (v.size() == 1 ? ",)" : ")");
    }
    if (v.is_string()) {
        const auto s = v.get<std::string>();
        return s.find('\'') == std::string::npos ? "'" + s + "'" : "\"" + s + "\"";
    }
    return v.dump();
}

// TraceLens's Falconsai image-detection trace of `gpu` (h100, mi300), without its extension.
std::string falconsaiBase(const QString& gpu)
{
    return "AMD-AGI__TraceLens/tests/traces/" + gpu.toStdString() +
           "/Falconsai_nsfw_image_detection__1016002";
}

// The kernel launchers of each operator name, as TraceLens's ops_summary groups them: their count, direct
// kernel time and the TraceLens categories they have.
struct NameSummary
{
    std::int64_t count = 0;
    profile::Ticks time = 0;
    std::set<std::string> categories;
};
std::map<std::string, NameSummary> launchersByName(const Profile& p,
                                                   const std::vector<profile::KernelLauncher>& launchers)
{
    std::map<std::string, NameSummary> byName;
    for (const profile::KernelLauncher& l : launchers) {
        const std::string& name = p.nameOf(p.slices[l.slice]);
        NameSummary& row = byName[name];
        ++row.count;
        row.time += l.directKernelTime;
        row.categories.emplace(profile::traceLensOpCategory(name, p.nameOf(p.slices[l.firstKernel])));
    }
    return byName;
}

// The GPUs TraceLens's Falconsai image-detection trace was recorded on, as a test's data rows.
void addFalconsaiGpus()
{
    QTest::addColumn<QString>("gpu");
    QTest::newRow("H100") << QStringLiteral("h100");
    QTest::newRow("MI300X") << QStringLiteral("mi300");
}

} // namespace

class TestRealTraceLens : public QObject
{
    Q_OBJECT

private slots:
    // TraceLens's kernel_summary.csv (generate_perf_report_pytorch, kernel_summary=True) on the Falconsai
    // image-detection traces of an H100 and an MI300X: per (the CPU op that launched the kernel, the
    // kernel, its stream) the count and the sum, mean, min and max of the kernels' durations, each row ours
    // to the nanosecond. The CPU op is the innermost one around the runtime call that launched the kernel.
    void traceLensKernelSummary_data() { addFalconsaiGpus(); }
    void traceLensKernelSummary()
    {
        QFETCH(QString, gpu);
        const std::string base = falconsaiBase(gpu);
        const std::string trace = test::realTrace(base + ".json.gz"),
                          csvPath = test::realTrace(base + "_perf_report_csvs/kernel_summary.csv");
        XPS_REQUIRE_REAL_TRACE(trace);
        XPS_REQUIRE_REAL_TRACE(csvPath);
        const Profile p = test::importRealTrace(trace);
        const Launches launches = launchesOf(p);
        const auto& parent = launches.parent;
        std::map<std::tuple<std::string, std::string, std::string>, DurationStats> ours;
        for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
            const profile::Slice& k = p.slices[i];
            if (p.classOf(k) != profile::SliceClass::Kernel || launches.launcher[i] == profile::kNone)
                continue;
            ours[{parent[i] ? std::string(p.nameOf(p.slices[*parent[i]])) : std::string(),
                  std::string(p.nameOf(k)), streamNumber(p.track(k.track()).name)}]
                .add(k.duration);
        }
        const std::vector<std::vector<std::string>> rows = sheetRows(csvPath);
        std::int64_t sheetKernels = 0;
        for (const std::vector<std::string>& f : rows) {
            QCOMPARE(f.size(), std::size_t{11});
            const auto it = ours.find({f[1], f[2], f[3]});
            QVERIFY2(it != ours.end(), (f[1] + " / " + f[2]).c_str());
            QVERIFY2(it->second.matches(f[5], f[4], f[7], f[8]), f[2].c_str());
            sheetKernels += it->second.count;
        }
        // TraceLens's rows cover every kernel we have, and no two of its rows are one of ours.
        std::int64_t ourKernels = 0;
        for (const auto& [key, st] : ours)
            ourKernels += st.count;
        QCOMPARE(sheetKernels, ourKernels);
        QCOMPARE(rows.size(), ours.size());
    }

    // TraceLens's coll_analysis.csv of its MI300X RCCL trace (ResNet with activation checkpointing, rank 0 of
    // 8): the collective kernels grouped by what their arguments say they move (collective, element counts,
    // type, group and its size) and their stream, each group's count and the sum, min and max of its
    // durations ours to the nanosecond.
    void traceLensCollectives()
    {
        const std::string base = "AMD-AGI__TraceLens/tests/traces/mi300/resnet_act_checkpoint";
        const std::string trace = test::realTrace(base + ".json.gz"),
                          csvPath = test::realTrace(base + "_recompute_perf_report_csvs/coll_analysis.csv");
        XPS_REQUIRE_REAL_TRACE(trace);
        XPS_REQUIRE_REAL_TRACE(csvPath);
        const Profile p = test::importRealTrace(trace);
        // Key: collective, in and out elements, dtype, group size, group name, stream.
        using Key = std::tuple<std::string, std::int64_t, std::int64_t, std::string, std::int64_t,
                               std::string, std::string>;
        std::map<Key, DurationStats> ours;
        for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
            const profile::Slice& k = p.slices[i];
            if (!profile::isDeviceWork(p.classOf(k)) || k.args == 0)
                continue;
            const json a = json::parse(p.argsOf(profile::SliceRow(i)), nullptr, false);
            if (!a.is_object() || !a.contains("Collective name") || !p.track(k.track()).device)
                continue;
            // The group's name as text ("0"), written as a string or a number.
            const auto groupName = [](const json& args) {
                const json* g = args.contains("Process Group Name") ? &args["Process Group Name"] : nullptr;
                return !g ? std::string() : g->is_string() ? g->get<std::string>() : g->dump();
            };
            const auto number = [&](const char* key) {
                return a.contains(key) && a[key].is_number() ? std::llround(a[key].get<double>()) : -1LL;
            };
            ours[{a.value("Collective name", ""), number("In msg nelems"), number("Out msg nelems"),
                  a.value("dtype", ""), number("Group size"), groupName(a),
                  streamNumber(p.track(k.track()).name)}]
                .add(k.duration);
        }
        const std::vector<std::vector<std::string>> rows = sheetRows(csvPath);
        const auto whole = [](const std::string& f) { return std::llround(std::stod(f)); };
        for (const std::vector<std::string>& f : rows) {
            QCOMPARE(f.size(), std::size_t{19});
            const auto it = ours.find(Key{f[3], whole(f[6]), whole(f[7]), f[5], whole(f[4]), f[1], f[10]});
            QVERIFY2(it != ours.end(), (f[3] + " of " + f[6]).c_str());
            QVERIFY2(it->second.matches(f[18], f[13], f[16], f[17]), (f[3] + " of " + f[6]).c_str());
        }
        QCOMPARE(rows.size(), ours.size()); // every collective we have is one of its rows
    }

    // TraceLens's ops_summary.csv and ops_summary_by_category.csv (generate_perf_report_pytorch) on the
    // Falconsai image-detection traces of an H100 and an MI300X: per operator name its kernel launchers (the
    // innermost operators around the launches), their direct kernel time and TraceLens categories, and per
    // category the same with its share, in the sheet's order; times within a nanosecond a launcher (the
    // trace's microseconds have three decimals, summed there in floating point).
    void traceLensOpsSummary_data() { addFalconsaiGpus(); }
    void traceLensOpsSummary()
    {
        QFETCH(QString, gpu);
        const std::string base = falconsaiBase(gpu);
        const std::string trace = test::realTrace(base + ".json.gz"),
                          byName = test::realTrace(base + "_perf_report_csvs/ops_summary.csv"),
                          byCategory =
                              test::realTrace(base + "_perf_report_csvs/ops_summary_by_category.csv");
        XPS_REQUIRE_REAL_TRACE(trace);
        XPS_REQUIRE_REAL_TRACE(byName);
        XPS_REQUIRE_REAL_TRACE(byCategory);
        const Profile p = test::importRealTrace(trace);
        CancelPoint never{std::stop_token{}};
        const auto launchers = profile::kernelLaunchers(p, profile::launchers(p, never), never);
        const auto close = [](const profile::DeviceTimeShare& r, const std::string& countText,
                              const std::string& ms, const std::string& percent,
                              const std::string& cumulative) {
            return static_cast<std::int64_t>(r.count) == std::llround(std::stod(countText)) &&
                   std::abs(static_cast<double>(r.time) / 1e6 - std::stod(ms)) <
                       1e-6 * static_cast<double>(r.count) + 1e-9 &&
                   std::abs(r.percent - std::stod(percent)) < 1e-3 &&
                   std::abs(r.cumulativePercent - std::stod(cumulative)) < 1e-3;
        };
        // By operator: name, sum (us), subtree sum, ms, subtree ms, Count, Categories, %, cumulative %.
        const auto ours = launchersByName(p, launchers);
        const auto rows = sheetRows(byName);
        QCOMPARE(ours.size(), rows.size());
        for (const auto& f : rows) {
            QCOMPARE(f.size(), std::size_t{9});
            const auto it = ours.find(f[0]);
            QVERIFY2(it != ours.end(), f[0].c_str());
            std::string categories;
            for (const std::string& c : it->second.categories)
                categories += (categories.empty() ? "'" : ", '") + c + "'";
            QCOMPARE("[" + categories + "]", f[6]);
            QCOMPARE(it->second.count, static_cast<std::int64_t>(std::llround(std::stod(f[5]))));
            QVERIFY2(
                std::abs(static_cast<double>(it->second.time) / 1e6 - std::stod(f[3])) <
                    1e-6 * static_cast<double>(it->second.count) + 1e-9,
                (f[0] + ": " + std::to_string(static_cast<double>(it->second.time) / 1e6) + " ms").c_str());
        }
        // By category: op category, Count, ms, %, cumulative %, in the sheet's order.
        const auto categories = profile::deviceTimeByCategory(p, launchers);
        const auto categoryRows = sheetRows(byCategory);
        QCOMPARE(categories.size(), categoryRows.size());
        for (std::size_t i = 0; i < categoryRows.size(); ++i) {
            const auto& f = categoryRows[i];
            QCOMPARE(QString::fromStdString(categories[i].key), QString::fromStdString(f[0]));
            QVERIFY2(close(categories[i], f[1], f[2], f[3], f[4]), f[0].c_str());
        }
    }

    // The same sheets of TraceLens's MI300X ResNet trace with activation checkpointing (rank 0 of 8, RCCL):
    // TraceLens splits each row by whether the op ran in a recomputation (is_recompute), which xpushark does
    // not tell apart (docs/import.md); summed over both, every operator name's and category's launchers and
    // direct kernel time are ours, collectives left out as TraceLens leaves them.
    void traceLensOpsSummaryWithRecompute()
    {
        const std::string base = "AMD-AGI__TraceLens/tests/traces/mi300/resnet_act_checkpoint";
        const std::string trace = test::realTrace(base + ".json.gz"),
                          csvs = test::realTrace(base + "_recompute_perf_report_csvs/");
        XPS_REQUIRE_REAL_TRACE(trace);
        XPS_REQUIRE_REAL_TRACE(csvs + "ops_summary.csv");
        const Profile p = test::importRealTrace(trace);
        CancelPoint never{std::stop_token{}};
        const auto launchers = profile::kernelLaunchers(p, profile::launchers(p, never), never);
        // Name or category -> (launchers, ms), summed over the recompute and other rows.
        const auto sheet = [&](const char* file, int countColumn, int msColumn) {
            std::map<std::string, std::pair<std::int64_t, double>> rows;
            for (const auto& f : sheetRows(csvs + file)) {
                auto& [count, ms] = rows[f[0]];
                count += std::llround(std::stod(f[static_cast<std::size_t>(countColumn)]));
                ms += std::stod(f[static_cast<std::size_t>(msColumn)]);
            }
            return rows;
        };
        const auto matches = [](const std::pair<std::int64_t, double>& theirs, std::int64_t count,
                                profile::Ticks time) {
            return theirs.first == count && std::abs(static_cast<double>(time) / 1e6 - theirs.second) <
                                                1e-6 * static_cast<double>(count) + 1e-9;
        };
        const auto byName = sheet("ops_summary.csv", 6, 4);
        const auto ours = launchersByName(p, launchers);
        QCOMPARE(ours.size(), byName.size());
        for (const auto& [name, row] : ours) {
            QVERIFY2(byName.contains(name), name.c_str());
            QVERIFY2(matches(byName.at(name), row.count, row.time), name.c_str());
        }
        const auto byCategory = sheet("ops_summary_by_category.csv", 2, 3);
        const auto categories = profile::deviceTimeByCategory(p, launchers);
        QCOMPARE(categories.size(), byCategory.size());
        for (const auto& r : categories) {
            QVERIFY2(byCategory.contains(r.key), r.key.c_str());
            QVERIFY2(matches(byCategory.at(r.key), static_cast<std::int64_t>(r.count), r.time),
                     r.key.c_str());
        }
    }

    // TraceLens's short-kernel study (short_kernel_study=True: kernels under 10 us) on the same traces:
    // short_kernels_summary.csv groups them by the CPU op that launched them, its input dims, strides and
    // concrete inputs (its Kineto args as Python prints them) and the kernel (count, sum, mean, and the sum's
    // percent of the GPU timeline's total time); short_kernel_histogram.csv counts them in 100 equal bins
    // from the shortest to the longest (numpy.histogram). Every row ours.
    void traceLensShortKernels_data() { addFalconsaiGpus(); }
    void traceLensShortKernels()
    {
        QFETCH(QString, gpu);
        const std::string base = falconsaiBase(gpu);
        const std::string trace = test::realTrace(base + ".json.gz"),
                          sheets = test::realTrace(base + "_perf_report_csvs/");
        XPS_REQUIRE_REAL_TRACE(trace);
        XPS_REQUIRE_REAL_TRACE(sheets + "short_kernels_summary.csv");
        const Profile p = test::importRealTrace(trace);
        const std::vector<std::optional<std::uint32_t>> parent = launchesOf(p).parent;
        constexpr profile::Ticks kShort = 10'000; // 10 us
        using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
        std::map<Key, DurationStats> ours;
        std::vector<double> durationsUs;
        for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
            const profile::Slice& k = p.slices[i];
            if (p.classOf(k) != profile::SliceClass::Kernel || k.duration >= kShort)
                continue;
            durationsUs.push_back(static_cast<double>(k.duration) / 1000.0);
            if (!parent[i]) // pandas drops a group whose key has no parent
                continue;
            const profile::Slice& op = p.slices[*parent[i]];
            const json a = json::parse(p.argsOf(profile::SliceRow(*parent[i])), nullptr, false);
            const auto arg = [&](const char* key) {
                return a.is_object() && a.contains(key) ? pythonText(a[key]) : std::string("nan");
            };
            ours[{std::string(p.nameOf(op)), arg("Input Dims"), arg("Input Strides"), arg("Concrete Inputs"),
                  std::string(p.nameOf(k))}]
                .add(k.duration);
        }
        // The GPU timeline's total time, the percentages' denominator.
        double totalMs = 0;
        for (const std::vector<std::string>& f : sheetRows(sheets + "gpu_timeline.csv"))
            if (f.at(0) == "total_time")
                totalMs = std::stod(f.at(1));
        QVERIFY(totalMs > 0);
        const std::vector<std::vector<std::string>> rows = sheetRows(sheets + "short_kernels_summary.csv");
        std::int64_t counted = 0;
        for (const std::vector<std::string>& f : rows) {
            QCOMPARE(f.size(), std::size_t{9});
            const auto it = ours.find(Key{f[0], f[1], f[2], f[3], f[4]});
            QVERIFY2(it != ours.end(), (f[0] + " " + f[1] + " / " + f[4]).c_str());
            const DurationStats& st = it->second;
            QVERIFY2(st.matches(f[6], f[5], std::to_string(static_cast<double>(st.min) / 1000.0),
                                std::to_string(static_cast<double>(st.max) / 1000.0)),
                     f[4].c_str());
            QVERIFY(std::abs(static_cast<double>(st.sum) / 1000.0 / static_cast<double>(st.count) -
                             std::stod(f[7])) < 0.01);
            QVERIFY(std::abs(static_cast<double>(st.sum) / 1000.0 / (totalMs * 1e3) * 100 - std::stod(f[8])) <
                    0.006);
            counted += st.count;
        }
        QCOMPARE(rows.size(), ours.size());
        std::int64_t grouped = 0;
        for (const auto& [key, st] : ours)
            grouped += st.count;
        QCOMPARE(counted, grouped);

        // numpy.histogram: 100 equal bins from the least to the greatest, the last one closed.
        const std::vector<std::vector<std::string>> bins = sheetRows(sheets + "short_kernel_histogram.csv");
        QCOMPARE(bins.size(), std::size_t{100});
        QVERIFY(!durationsUs.empty());
        const auto [lo, hi] = std::minmax_element(durationsUs.begin(), durationsUs.end());
        const double width = (*hi - *lo) / 100.0;
        std::vector<std::int64_t> counts(100, 0);
        for (const double d : durationsUs)
            ++counts[std::min<std::size_t>(static_cast<std::size_t>((d - *lo) / width), 99)];
        for (std::size_t b = 0; b < 100; ++b) {
            QVERIFY(std::abs(std::stod(bins[b][0]) - (*lo + width * static_cast<double>(b))) < 1e-6);
            QCOMPARE(std::llround(std::stod(bins[b][2])), static_cast<long long>(counts[b]));
        }
    }
};

QTEST_GUILESS_MAIN(TestRealTraceLens)
#include "tst_real_tracelens.moc"
