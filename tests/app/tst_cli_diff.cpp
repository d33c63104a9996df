// `xpushark-cli diff` as CI runs it: on every naive/tuned sample pair the diff's
// numbers are the two runs' own numbers as `analyze --json` reports them, and their differences; the
// threshold gate exits 3 only when the other run is slower by more than it asks, in total or in a region;
// a trace beside a profile is compared as its replay's profile; wrong arguments get precise messages.
#include "cli_test_support.h"

#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace xps;

namespace {

using test::cli;
using test::Run;
using test::sample;

nlohmann::json analyzed(const QString& path)
{
    const Run r =
        cli({QStringLiteral("analyze"), path, QStringLiteral("--json"), QStringLiteral("--no-measure")});
    if (r.exitCode != 0)
        qFatal("analyze %s failed: %s", qPrintable(path), r.err.c_str());
    return nlohmann::json::parse(r.out);
}

std::uint64_t bundlesOf(const nlohmann::json& analysis)
{
    std::uint64_t n = 0;
    for (const auto& c : analysis["summary"]["chips"])
        n += c["bundles"].get<std::uint64_t>();
    return n;
}

// `compared` holds {baseline, other, delta} equal to (a, b, b - a).
bool holds(const nlohmann::json& compared, std::uint64_t a, std::uint64_t b)
{
    return compared["baseline"].get<std::uint64_t>() == a && compared["other"].get<std::uint64_t>() == b &&
           compared["delta"].get<std::int64_t>() ==
               static_cast<std::int64_t>(b) - static_cast<std::int64_t>(a);
}

} // namespace

class TestCliDiff : public QObject
{
    Q_OBJECT

private slots:
    void totalsAreTheRunsOwn_data() { test::addSamplePairRows(); }
    void totalsAreTheRunsOwn()
    {
        QFETCH(QString, pair);
        const QString naive = sample(pair + QStringLiteral("_naive.xtrace.json"));
        const QString tuned = sample(pair + QStringLiteral("_tuned.xtrace.json"));
        const Run r = cli({QStringLiteral("diff"), naive, tuned, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json d = nlohmann::json::parse(r.out);
        const nlohmann::json a = analyzed(naive), b = analyzed(tuned);
        QCOMPARE(d["format"].get<std::string>(), std::string("xpushark-diff"));
        QCOMPARE(d["version"].get<int>(), 1);

        const auto cycles = [](const nlohmann::json& x) {
            return x["summary"]["total_cycles"].get<std::uint64_t>();
        };
        QVERIFY(holds(d["totals"]["cycles"], cycles(a), cycles(b)));
        QCOMPARE(d["baseline"]["total_cycles"].get<std::uint64_t>(), cycles(a));
        QCOMPARE(d["other"]["total_cycles"].get<std::uint64_t>(), cycles(b));
        QVERIFY(holds(d["totals"]["bundles"], bundlesOf(a), bundlesOf(b)));
        QVERIFY(holds(d["totals"]["exposed_dma_cycles"], a["dma"]["exposed_cycles"].get<std::uint64_t>(),
                      b["dma"]["exposed_cycles"].get<std::uint64_t>()));
        QVERIFY(holds(d["totals"]["vmem_peak_bytes"], a["vmem"]["peak_live_bytes"].get<std::uint64_t>(),
                      b["vmem"]["peak_live_bytes"].get<std::uint64_t>()));
        std::uint64_t stallsA = 0, stallsB = 0;
        for (const auto& [reason, cyclesA] : a["summary"]["stall_cycles"].items()) {
            const std::uint64_t cyclesB = b["summary"]["stall_cycles"][reason].get<std::uint64_t>();
            QVERIFY2(holds(d["stall_cycles_by_reason"][reason], cyclesA.get<std::uint64_t>(), cyclesB),
                     reason.c_str());
            stallsA += cyclesA.get<std::uint64_t>();
            stallsB += cyclesB;
        }
        QVERIFY(holds(d["totals"]["stall_cycles"], stallsA, stallsB));
        for (const auto& [kind, cyclesA] : a["critical_path"]["composition"].items())
            QVERIFY2(holds(d["critical_path"][kind], cyclesA.get<std::uint64_t>(),
                           b["critical_path"]["composition"][kind].get<std::uint64_t>()),
                     kind.c_str());

        // Every region of either run has its row, with that run's numbers; a region only one program has
        // counts 0 in the other.
        std::map<std::string, nlohmann::json> rows;
        for (const auto& row : d["regions"])
            rows[row["path"].get<std::string>()] = row;
        for (const auto& [run, side] : {std::pair{&a, "baseline"}, std::pair{&b, "other"}})
            for (const auto& region : (*run)["summary"]["regions"]) {
                const std::string path = region["path"].get<std::string>();
                QVERIFY2(rows.count(path), path.c_str());
                QCOMPARE(rows[path]["cycles"][side].get<std::uint64_t>(),
                         region["cycles"].get<std::uint64_t>());
                QCOMPARE(rows[path]["bundles"][side].get<std::uint64_t>(),
                         region["bundles"].get<std::uint64_t>());
                QCOMPARE(rows[path]["instances"][side].get<std::uint64_t>(),
                         region["instances"].get<std::uint64_t>());
                QCOMPARE(rows[path][std::string("in_") + side].get<bool>(), true);
            }
        // The bundles: on chips whose programs were matched, the rows (every bundle that changed, or that one
        // program only has) add up to the change of the totals: executions to bundles, stalls to stalls.
        bool allAligned = true;
        for (const auto& chip : d["alignment"])
            allAligned = allAligned && chip["aligned"].get<bool>();
        if (allAligned) {
            std::int64_t executions = 0, stalls = 0, dmaBytes = 0, exposed = 0;
            for (const auto& row : d["pcs"]) {
                executions += row["executions"]["delta"].get<std::int64_t>();
                stalls += row["stall_cycles"]["delta"].get<std::int64_t>();
                dmaBytes += row["dma_bytes"]["delta"].get<std::int64_t>();
                exposed += row["exposed_dma_cycles"]["delta"].get<std::int64_t>();
                QVERIFY(!row["baseline_pc"].is_null() || !row["other_pc"].is_null());
                // A bundle's cycles: one to issue per execution, and its stalls.
                QCOMPARE(row["cycles"]["delta"].get<std::int64_t>(),
                         row["executions"]["delta"].get<std::int64_t>() +
                             row["stall_cycles"]["delta"].get<std::int64_t>());
            }
            QCOMPARE(executions, d["totals"]["bundles"]["delta"].get<std::int64_t>());
            QCOMPARE(stalls, d["totals"]["stall_cycles"]["delta"].get<std::int64_t>());
            QCOMPARE(dmaBytes, d["totals"]["dma_bytes"]["delta"].get<std::int64_t>());
            QCOMPARE(exposed, d["totals"]["exposed_dma_cycles"]["delta"].get<std::int64_t>());
        } else {
            // matmul's tuned kernel is another program, not an edit of the naive one.
            QCOMPARE(pair, QStringLiteral("matmul"));
            QVERIFY(d["pcs"].empty());
        }
        // Largest change first.
        for (std::size_t i = 1; i < d["regions"].size(); ++i)
            QVERIFY(std::llabs(d["regions"][i - 1]["cycles"]["delta"].get<std::int64_t>()) >=
                    std::llabs(d["regions"][i]["cycles"]["delta"].get<std::int64_t>()));
    }

    void theGateFailsOnlyWhenSlowerThanAsked()
    {
        const QString naive = sample(QStringLiteral("allgather_naive.xtrace.json"));
        const QString tuned = sample(QStringLiteral("allgather_tuned.xtrace.json"));
        // The tuned all-gather is 47.8% faster: no threshold trips going from naive to tuned.
        Run r = cli(
            {QStringLiteral("diff"), naive, tuned, QStringLiteral("--fail-if-slower"), QStringLiteral("0")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("the run: other is 47.8% faster (-36,707 cycles)") != std::string::npos,
                 r.out.c_str());
        // The other way it is 91.6% slower: a 100% threshold holds, 90% does not.
        r = cli({QStringLiteral("diff"), tuned, naive, QStringLiteral("--fail-if-slower"),
                 QStringLiteral("100")});
        QCOMPARE(r.exitCode, 0);
        r = cli(
            {QStringLiteral("diff"), tuned, naive, QStringLiteral("--fail-if-slower"), QStringLiteral("90")});
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(
            r.err,
            std::string("xpushark-cli: diff: the run is 91.6% slower than the baseline (threshold 90%)\n"));
        // In one region, named by its name or its path, with only its row in the JSON.
        r = cli({QStringLiteral("diff"), tuned, naive, QStringLiteral("--region"), QStringLiteral("step"),
                 QStringLiteral("--fail-if-slower"), QStringLiteral("50"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 3);
        const nlohmann::json d = nlohmann::json::parse(r.out);
        QCOMPARE(d["region"].get<std::string>(), std::string("allgather > step"));
        QCOMPARE(d["regions"].size(), std::size_t(1));
        QVERIFY(d["regions"][0]["cycles"]["delta"].get<std::int64_t>() > 0);
        r = cli({QStringLiteral("diff"), naive, tuned, QStringLiteral("--region"),
                 QStringLiteral("allgather > step")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("region allgather > step: other is 47.8% faster") != std::string::npos,
                 r.out.c_str());
    }

    void aSuggestionsBundlesAreMatched()
    {
        // allgather_tuned splits each step's transfer in two over both ring directions: per chip the
        // program gains bundles; the rest of each chip's bundles are matched to the naive ones.
        const Run r = cli({QStringLiteral("diff"), sample(QStringLiteral("allgather_naive.xtrace.json")),
                           sample(QStringLiteral("allgather_tuned.xtrace.json")), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json d = nlohmann::json::parse(r.out);
        QCOMPARE(d["alignment"].size(), std::size_t(4));
        for (const auto& chip : d["alignment"]) {
            QVERIFY(chip["aligned"].get<bool>());
            QVERIFY(chip["matched"].get<int>() > 0);
            QVERIFY(chip["inserted"].get<int>() > 0);
        }
        bool sawInserted = false;
        for (const auto& row : d["pcs"])
            if (row["baseline_pc"].is_null()) {
                sawInserted = true;
                QCOMPARE(row["executions"]["baseline"].get<int>(), 0);
                QVERIFY(!row["bundle"].get<std::string>().empty());
            }
        QVERIFY(sawInserted);
        // The text names the inserted bundles and how each chip was matched.
        const Run text = cli({QStringLiteral("diff"), sample(QStringLiteral("allgather_naive.xtrace.json")),
                              sample(QStringLiteral("allgather_tuned.xtrace.json"))});
        QVERIFY2(text.out.find("(inserted): ") != std::string::npos, text.out.c_str());
        QVERIFY2(text.out.find("chip 0: 8 bundles in both programs, 13 inserted, 7 removed") !=
                     std::string::npos,
                 text.out.c_str());
    }

    void twoProfilesAreComparedByOperation()
    {
        // kineto_step.json, and the same step with each of its two GEMM kernels 60 us longer and the step
        // 100 us longer.
        const std::string original = test::sourceDir() + "/tests/data/kineto_step.json";
        QTemporaryDir dir;
        const QString slower = test::writeSlowerKinetoStep(dir);
        const QString base = QString::fromStdString(original);

        const Run r = cli({QStringLiteral("diff"), base, slower, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json d = nlohmann::json::parse(r.out);
        QCOMPARE(d["kind"].get<std::string>(), std::string("profiles"));
        const Run ra = cli({QStringLiteral("analyze"), base, QStringLiteral("--json")});
        const Run rb = cli({QStringLiteral("analyze"), slower, QStringLiteral("--json")});
        const nlohmann::json a = nlohmann::json::parse(ra.out), b = nlohmann::json::parse(rb.out);
        QVERIFY(holds(d["span_ns"], a["span_ns"].get<std::uint64_t>(), b["span_ns"].get<std::uint64_t>()));
        QCOMPARE(d["span_ns"]["delta"].get<std::int64_t>(), std::int64_t(100000));
        // Every operation of each run has its row with that run's numbers (by name, category and where).
        for (const auto& [run, side] : {std::pair{&a, "baseline"}, std::pair{&b, "other"}})
            for (const auto& op : (*run)["ops"]) {
                const std::string where = op["device"].is_null() ? "host" : op["device"].get<std::string>();
                const auto row = std::find_if(d["ops"].begin(), d["ops"].end(), [&](const nlohmann::json& x) {
                    return x["name"] == op["name"] && x["category"] == op["category"] && x["where"] == where;
                });
                QVERIFY2(row != d["ops"].end(), op["name"].get<std::string>().c_str());
                QCOMPARE((*row)["count"][side].get<std::uint64_t>(), op["count"].get<std::uint64_t>());
                QCOMPARE((*row)["total_ns"][side].get<std::uint64_t>(), op["total_ns"].get<std::uint64_t>());
                QCOMPARE((*row)["self_ns"][side].get<std::uint64_t>(), op["self_ns"].get<std::uint64_t>());
            }
        // The longer kernels are the largest change, then the step itself.
        QCOMPARE(d["ops"][0]["name"].get<std::string>(), std::string("sgemm_128x64"));
        QCOMPARE(d["ops"][0]["total_ns"]["delta"].get<std::int64_t>(), std::int64_t(120000));
        QCOMPARE(d["ops"][1]["name"].get<std::string>(), std::string("ProfilerStep#1"));
        QCOMPARE(d["ops"][1]["total_ns"]["delta"].get<std::int64_t>(), std::int64_t(100000));
        for (const auto& dev : a["devices"]) {
            const auto row = std::find_if(d["devices"].begin(), d["devices"].end(),
                                          [&](const nlohmann::json& x) { return x["name"] == dev["name"]; });
            QVERIFY(row != d["devices"].end());
            QCOMPARE((*row)["busy_ns"]["baseline"].get<std::uint64_t>(), dev["busy_ns"].get<std::uint64_t>());
            QCOMPARE((*row)["compute_ns"]["baseline"].get<std::uint64_t>(),
                     dev["compute_ns"].get<std::uint64_t>());
        }
        QCOMPARE(d["devices"][0]["compute_ns"]["delta"].get<std::int64_t>(), std::int64_t(120000));
        // The two critical paths side by side: each run's own length and kinds, and its operations' rows add
        // up to its length; the longer GEMMs are the largest change on the path.
        const nlohmann::json& path = d["critical_path"];
        QVERIFY(holds(path["length_ns"], a["critical_path"]["length_ns"].get<std::uint64_t>(),
                      b["critical_path"]["length_ns"].get<std::uint64_t>()));
        for (const auto& [kind, ns] : a["critical_path"]["by_kind_ns"].items())
            QVERIFY2(holds(path["by_kind_ns"][kind], ns.get<std::uint64_t>(),
                           b["critical_path"]["by_kind_ns"][kind].get<std::uint64_t>()),
                     kind.c_str());
        std::uint64_t onPathA = 0, onPathB = 0;
        for (const auto& op : path["ops"]) {
            onPathA += op["on_path_ns"]["baseline"].get<std::uint64_t>();
            onPathB += op["on_path_ns"]["other"].get<std::uint64_t>();
        }
        QCOMPARE(onPathA, path["length_ns"]["baseline"].get<std::uint64_t>());
        QCOMPARE(onPathB, path["length_ns"]["other"].get<std::uint64_t>());
        QCOMPARE(path["ops"][0]["name"].get<std::string>(), std::string("sgemm_128x64"));
        QCOMPARE(path["ops"][0]["kind"].get<std::string>(), std::string("kernel"));
        QCOMPARE(path["ops"][0]["on_path_ns"]["delta"].get<std::int64_t>(), std::int64_t(60000));
        // The gate is on the span: 10% longer.
        QCOMPARE(cli({QStringLiteral("diff"), base, slower, QStringLiteral("--fail-if-slower"),
                      QStringLiteral("15")})
                     .exitCode,
                 0);
        const Run gated = cli(
            {QStringLiteral("diff"), base, slower, QStringLiteral("--fail-if-slower"), QStringLiteral("5")});
        QCOMPARE(gated.exitCode, 3);
        QCOMPARE(gated.err, std::string("xpushark-cli: diff: the profile's span is 10.0% longer than the "
                                        "baseline's (threshold 5%)\n"));
        QVERIFY2(gated.out.find("sgemm_128x64 [GPU 0]") != std::string::npos, gated.out.c_str());
    }

    void aTraceIsComparedWithAProfileAsItsReplaysProfile()
    {
        // The GRM's run of a program beside a profile of another run (here: the tuned sample's replay
        // exported, as a measured profile would come): the trace's side is its replay seen as a profile,
        // the numbers `analyze --as-profile` gives it, in either order.
        QTemporaryDir dir;
        const QString naive = sample(QStringLiteral("decode_naive.xtrace.json"));
        const QString tuned = test::exportTunedDecode(dir);
        const Run asProfile =
            cli({QStringLiteral("analyze"), naive, QStringLiteral("--as-profile"), QStringLiteral("--json")});
        const Run imported = cli({QStringLiteral("analyze"), tuned, QStringLiteral("--json")});
        QCOMPARE(asProfile.exitCode, 0);
        QCOMPARE(imported.exitCode, 0);
        const nlohmann::json a = nlohmann::json::parse(asProfile.out),
                             b = nlohmann::json::parse(imported.out);
        for (const bool traceFirst : {true, false}) {
            const Run r = cli({QStringLiteral("diff"), traceFirst ? naive : tuned, traceFirst ? tuned : naive,
                               QStringLiteral("--json")});
            QCOMPARE(r.exitCode, 0);
            const nlohmann::json d = nlohmann::json::parse(r.out);
            QCOMPARE(d["kind"].get<std::string>(), std::string("profiles"));
            const nlohmann::json& base = traceFirst ? a : b;
            const nlohmann::json& other = traceFirst ? b : a;
            QVERIFY(holds(d["span_ns"], base["span_ns"].get<std::uint64_t>(),
                          other["span_ns"].get<std::uint64_t>()));
            QVERIFY(holds(d["critical_path"]["length_ns"],
                          base["critical_path"]["length_ns"].get<std::uint64_t>(),
                          other["critical_path"]["length_ns"].get<std::uint64_t>()));
            for (const auto& [run, side] : {std::pair{&base, "baseline"}, std::pair{&other, "other"}})
                for (const auto& dev : (*run)["devices"]) {
                    const auto row =
                        std::find_if(d["devices"].begin(), d["devices"].end(),
                                     [&](const nlohmann::json& x) { return x["name"] == dev["name"]; });
                    QVERIFY(row != d["devices"].end());
                    QCOMPARE((*row)["busy_ns"][side].get<std::uint64_t>(),
                             dev["busy_ns"].get<std::uint64_t>());
                    QCOMPARE((*row)["memcpy_ns"][side].get<std::uint64_t>(),
                             dev["memcpy_ns"].get<std::uint64_t>());
                }
            // The naive program's DMAs wait exposed; the tuned one's overlap: its exposed copy time is the
            // largest device change, against the naive run.
            const auto chip = std::find_if(d["devices"].begin(), d["devices"].end(),
                                           [](const nlohmann::json& x) { return x["name"] == "chip 0"; });
            QVERIFY(chip != d["devices"].end());
            const std::int64_t exposed = (*chip)["memcpy_exposed_ns"]["delta"].get<std::int64_t>();
            QVERIFY2(traceFirst ? exposed < -10000 : exposed > 10000, std::to_string(exposed).c_str());
        }
        // The gate reads the span as for two profiles: the naive run is a third longer than the tuned one.
        const Run gated = cli(
            {QStringLiteral("diff"), tuned, naive, QStringLiteral("--fail-if-slower"), QStringLiteral("5")});
        QCOMPARE(gated.exitCode, 3);
        QVERIFY2(gated.out.find("decode_layer [chip 0]") != std::string::npos, gated.out.c_str());
    }

    void oneStepOfEachProfile()
    {
        // HTA's trace_compare pair (tests/data/hta): iteration 1010 of each, as HTA's TraceDiff lists it.
        const QString base =
            QString::fromStdString(test::sourceDir() + "/tests/data/hta/trace_compare/base.json.gz");
        const QString other =
            QString::fromStdString(test::sourceDir() + "/tests/data/hta/trace_compare/test.json.gz");
        const Run r = cli({QStringLiteral("diff"), base, other, QStringLiteral("--window"),
                           QStringLiteral("ProfilerStep#1010"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json d = nlohmann::json::parse(r.out);
        QCOMPARE(d["window"]["name"].get<std::string>(), std::string("ProfilerStep#1010"));
        QVERIFY(holds(d["window"]["span_ns"], 122'149'000, 122'149'000));
        std::vector<std::string> added, removed;
        for (const auto& op : d["ops"])
            if (op["where"] == "host" && !op["in_baseline"].get<bool>())
                added.push_back(op["name"].get<std::string>());
            else if (op["where"] == "host" && !op["in_other"].get<bool>())
                removed.push_back(op["name"].get<std::string>());
        std::sort(added.begin(), added.end());
        QCOMPARE(added, (std::vector<std::string>{"AddmmBackward0", "All2All_Pooled_Req", "CatBackward0"}));
        QCOMPARE(removed, std::vector<std::string>{"nccl:all_reduce"});
        // Without the window the base's two all-reduces (one per step) are one fewer, not removed.
        const nlohmann::json whole =
            nlohmann::json::parse(cli({QStringLiteral("diff"), base, other, QStringLiteral("--json")}).out);
        QVERIFY(!whole.contains("window"));
        for (const auto& op : whole["ops"])
            if (op["name"] == "nccl:all_reduce")
                QVERIFY(holds(op["count"], 2, 1));
        const Run text = cli({QStringLiteral("diff"), base, other, QStringLiteral("--window"),
                              QStringLiteral("ProfilerStep#1010")});
        QVERIFY2(text.out.find("window ProfilerStep#1010") != std::string::npos, text.out.c_str());
        QVERIFY2(text.out.find("nccl:all_reduce [host] (removed)") != std::string::npos, text.out.c_str());
    }

    void wrongArgumentsAreNamed_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        const QString a = sample(QStringLiteral("decode_naive.xtrace.json"));
        const QString b = sample(QStringLiteral("decode_tuned.xtrace.json"));
        QTest::newRow("one file") << QStringList{QStringLiteral("diff"), a} << 2
                                  << QStringLiteral("diff: expected two TRACE files (BASELINE OTHER), got 1");
        QTest::newRow("bad percentage")
            << QStringList{QStringLiteral("diff"), a, b, QStringLiteral("--fail-if-slower"),
                           QStringLiteral("2x")}
            << 2 << QStringLiteral("diff: --fail-if-slower needs a percentage >= 0");
        QTest::newRow("negative percentage")
            << QStringList{QStringLiteral("diff"), a, b, QStringLiteral("--fail-if-slower"),
                           QStringLiteral("-1")}
            << 2 << QStringLiteral("diff: --fail-if-slower needs a percentage >= 0");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("diff"), a, b, QStringLiteral("--fast")}
                                        << 2 << QStringLiteral("diff: unknown option '--fast'");
        QTest::newRow("no such region")
            << QStringList{QStringLiteral("diff"), a, b, QStringLiteral("--region"), QStringLiteral("nosuch")}
            << 1 << QStringLiteral("no region named 'nosuch' in either run");
        const QString kineto = QString::fromStdString(test::sourceDir() + "/tests/data/kineto_step.json");
        // A trace beside a profile is compared as its replay's profile, which only a whole run is.
        QTest::newRow("a trace that did not end beside a profile")
            << QStringList{QStringLiteral("diff"), kineto, a, QStringLiteral("--max-cycles"),
                           QStringLiteral("1000")}
            << 1 << QStringLiteral("decode_naive.xtrace.json: replay stopped at ");
        QTest::newRow("a profile's region")
            << QStringList{QStringLiteral("diff"), kineto, kineto, QStringLiteral("--region"),
                           QStringLiteral("x")}
            << 2 << QStringLiteral("diff: --region is for two xpushark traces");
        QTest::newRow("a region beside a profile")
            << QStringList{QStringLiteral("diff"), a, kineto, QStringLiteral("--region"), QStringLiteral("x")}
            << 2 << QStringLiteral("diff: --region is for two xpushark traces");
        QTest::newRow("a trace's window")
            << QStringList{QStringLiteral("diff"), a, b, QStringLiteral("--window"),
                           QStringLiteral("ProfilerStep#1")}
            << 2 << QStringLiteral("diff: --window is for imported profiles");
        QTest::newRow("a window without a name")
            << QStringList{QStringLiteral("diff"), kineto, kineto, QStringLiteral("--window")} << 2
            << QStringLiteral("diff: --window needs the name of a slice");
        QTest::newRow("a window no slice has")
            << QStringList{QStringLiteral("diff"), kineto, kineto, QStringLiteral("--window"),
                           QStringLiteral("Step#9")}
            << 1 << QStringLiteral("kineto_step.json: --window: no slice is named 'Step#9'");
        QTest::newRow("missing file")
            << QStringList{QStringLiteral("diff"), a, QStringLiteral("/nonexistent.json")} << 1
            << QStringLiteral("/nonexistent.json: no such file");
        // The other run is analysed on a second thread meanwhile: stopped, and silent, when the baseline
        // fails.
        QTest::newRow("missing baseline")
            << QStringList{QStringLiteral("diff"), QStringLiteral("/nonexistent.xtrace.json"), a} << 1
            << QStringLiteral("/nonexistent.xtrace.json: no such file");
        // A missing file beside a profile is named as missing, not as a trace of the other kind.
        QTest::newRow("a profile and a missing file")
            << QStringList{QStringLiteral("diff"), kineto, QStringLiteral("/nonexistent.json")} << 1
            << QStringLiteral("/nonexistent.json: no such file");
    }
    void wrongArgumentsAreNamed()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const Run r = cli(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.find(message.toStdString()) != std::string::npos, r.err.c_str());
        QVERIFY(r.out.empty());
        QVERIFY2(std::count(r.err.begin(), r.err.end(), '\n') <= 2, r.err.c_str()); // the error, maybe a hint
    }
};

QTEST_GUILESS_MAIN(TestCliDiff)
#include "tst_cli_diff.moc"
