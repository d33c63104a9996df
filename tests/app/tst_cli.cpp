// xpushark-cli as a user runs it: exit codes, what it prints for good and bad input, conversions that
// reproduce the trace, and the install script's idempotency.
#include "cli_test_support.h"

#include "session/session.h"
#include "trace/trace_io.h"

#include <QProcess>
#include <QTemporaryDir>
#include <csignal>
#include <map>
#include <nlohmann/json.hpp>

using namespace xps;

namespace {

using test::cli;
using test::Run;
using test::runProgram;

// A wrong command line: exit code 2, the message on the first line of stderr, nothing on stdout.
void expectUsageError(const QStringList& args, const QByteArray& error)
{
    const Run r = cli(args);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err.substr(0, r.err.find('\n')), error.toStdString());
    QVERIFY(r.out.empty());
}

QString sample(const char* name)
{
    return QString::fromStdString(test::sourceDir() + "/resources/samples/") + QString::fromLatin1(name);
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private slots:
    void infoDescribesTheSample()
    {
        const Run r = cli({QStringLiteral("info"), sample("vector_add.xasm")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("trace:     vector_add (double-buffered)") != std::string::npos, r.out.c_str());
        QVERIFY(r.out.find("chip 0: 37 bundles, 46 instructions") != std::string::npos);
        QVERIFY(r.out.find("c_hbm           hbm  0x200000    64 KiB     f32  128x128     output") !=
                std::string::npos);
        QVERIFY(r.out.find("regions: vector_add(op) tile_loop(loop)") != std::string::npos);
    }

    void convertChainReproducesTheTrace()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath(QStringLiteral("a.xtrace.json"));
        const QString xps = dir.filePath(QStringLiteral("a.xps"));
        const QString json2 = dir.filePath(QStringLiteral("b.xtrace.json"));
        const QString xasm = dir.filePath(QStringLiteral("c.xasm"));
        QCOMPARE(
            cli({QStringLiteral("convert"), sample("vector_add.xasm"), QStringLiteral("-o"), json}).exitCode,
            0);
        QCOMPARE(cli({QStringLiteral("convert"), json, QStringLiteral("-o"), xps}).exitCode, 0);
        QCOMPARE(cli({QStringLiteral("convert"), xps, QStringLiteral("-o"), json2}).exitCode, 0);
        QCOMPARE(test::readFile(json2.toStdString()), test::readFile(json.toStdString()));
        QCOMPARE(cli({QStringLiteral("disasm"), xps, QStringLiteral("-o"), xasm}).exitCode, 0);
        const auto original = trace::loadTrace(sample("vector_add.xasm").toStdString());
        const auto reassembled = trace::loadTrace(xasm.toStdString());
        QVERIFY(original.ok() && reassembled.ok());
        QVERIFY(*original == *reassembled);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("error");
        QTest::newRow("no command") << QStringList{} << QByteArray("xpushark-cli: missing COMMAND");
        QTest::newRow("typo") << QStringList{QStringLiteral("ifno")}
                              << QByteArray("xpushark-cli: unknown command 'ifno'; did you mean 'info'?");
        QTest::newRow("info without file")
            << QStringList{QStringLiteral("info")}
            << QByteArray("xpushark-cli: info: expected exactly one TRACE file, got 0");
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("info"), QStringLiteral("--fast"), QStringLiteral("x.xps")}
            << QByteArray("xpushark-cli: info: unknown option '--fast'");
        QTest::newRow("convert without -o")
            << QStringList{QStringLiteral("convert"), QStringLiteral("a.xps")}
            << QByteArray("xpushark-cli: convert: missing -o OUT (a .xtrace.json or .xps file)");
        QTest::newRow("analyze without file")
            << QStringList{QStringLiteral("analyze")}
            << QByteArray("xpushark-cli: analyze: expected exactly one TRACE file, got 0");
        QTest::newRow("apply without suggestion")
            << QStringList{QStringLiteral("apply"), QStringLiteral("a.xps"), QStringLiteral("-o"),
                           QStringLiteral("b.xps")}
            << QByteArray("xpushark-cli: apply: usage: apply TRACE --suggestion ID -o FIXED");
        QTest::newRow("report without -o")
            << QStringList{QStringLiteral("report"), QStringLiteral("a.xps")}
            << QByteArray("xpushark-cli: report: usage: report TRACE -o OUT.{html,md,json,pdf} [--format "
                          "FORMAT] [--no-measure]");
        QTest::newRow("report in an unknown format")
            << QStringList{QStringLiteral("report"), QStringLiteral("a.xps"), QStringLiteral("-o"),
                           QStringLiteral("r.docx")}
            << QByteArray("xpushark-cli: report: cannot tell the format of 'r.docx': use .html, .md, .json "
                          "or .pdf, or "
                          "--format html|md|json|pdf");
        QTest::newRow("-o without name")
            << QStringList{QStringLiteral("convert"), QStringLiteral("a.xps"), QStringLiteral("-o")}
            << QByteArray("xpushark-cli: convert: -o needs a file name");
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, error);
        expectUsageError(args, error);
    }

    void badInputExitsOneWithTheLocation()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.xasm"));
        test::writeFile(bad.toStdString(), "halt\nvadd.f32 v1, v2\n");
        const Run r = cli({QStringLiteral("info"), bad});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err,
                 bad.toStdString() +
                     ":2:16: expected ',' and operand 'vb' (a vector register (v0..v31)) of vadd.f32\n");

        const Run missing = cli({QStringLiteral("info"), dir.filePath(QStringLiteral("none.xps"))});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.ends_with("none.xps: no such file\n"));

        const Run wrongOut = cli({QStringLiteral("convert"), sample("vector_add.xasm"), QStringLiteral("-o"),
                                  dir.filePath(QStringLiteral("x.txt"))});
        QCOMPARE(wrongOut.exitCode, 1);
        QVERIFY(wrongOut.err.find("unknown trace file type") != std::string::npos);
    }

    void versionAndHelp()
    {
        const Run v = cli({QStringLiteral("--version")});
        QCOMPARE(v.exitCode, 0);
        QVERIFY(v.out.starts_with("xpushark-cli 0."));
        const Run h = cli({QStringLiteral("--help")});
        QCOMPARE(h.exitCode, 0);
        QVERIFY(h.out.find("convert IN -o OUT") != std::string::npos);
    }

    void isaTablesAreMarkdown()
    {
        const Run r = cli({QStringLiteral("isa"), QStringLiteral("--opcodes")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.starts_with("| syntax | slot | unit | latency | occupancy | semantics |"));
        QVERIFY(r.out.find("`dma.start dst, src, bytes, flag, [engine=0]") != std::string::npos);
    }

    void replaySummary()
    {
        const Run r = cli({QStringLiteral("replay"), sample("vector_add.xasm"), QStringLiteral("--summary")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.starts_with("total: 1238 cycles = 1.179 us at 1050 MHz"), r.out.c_str());
        QVERIFY(r.out.find("chip 0: 420 bundles, 523 instructions, halted at cycle 1238") !=
                std::string::npos);
        QVERIFY(r.out.find("HBM bandwidth utilization:   13.9%  (192 KiB moved)") != std::string::npos);
        QVERIFY(r.out.find("    sync wait                   596   72.9%") != std::string::npos);
        // Timing-only mode gives the same timing for this kernel.
        const Run t = cli({QStringLiteral("replay"), sample("vector_add.xasm"), QStringLiteral("--mode"),
                           QStringLiteral("timing")});
        QCOMPARE(t.exitCode, 0);
        QCOMPARE(t.out, "replayed " + sample("vector_add.xasm").toStdString() + ": 1238 cycles\n");
    }

    void chromeTraceOpensWithLanesAndFlows()
    {
        QTemporaryDir dir;
        const QString source = dir.filePath(QStringLiteral("remote.xasm"));
        test::writeFile(source.toStdString(), R"(.machine chips=2
.vmem buf, 0, 4096
.chip 0
.init buf, iota_s32
    dma.start vmem[0x1000], vmem[buf], 4096, 3, engine=2, chip=1
    halt
.chip 1
    sync.wait 3, 1
    halt
)");
        const QString out = dir.filePath(QStringLiteral("out.json"));
        const Run r = cli({QStringLiteral("replay"), source, QStringLiteral("--chrome-trace"), out});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json doc = nlohmann::json::parse(test::readFile(out.toStdString()));
        std::map<std::pair<int, int>, std::string> threads;
        const nlohmann::json* dma = nullptr;
        const nlohmann::json* wait = nullptr;
        std::vector<const nlohmann::json*> flows;
        for (const auto& e : doc["traceEvents"]) {
            if (e["ph"] == "M" && e["name"] == "thread_name")
                threads[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
            if (e["ph"] == "X" && e["name"].get<std::string>().starts_with("dma #0"))
                dma = &e;
            if (e["ph"] == "X" && e["name"] == "wait flag 3 >= 1")
                wait = &e;
            if (e["ph"] == "s" || e["ph"] == "f")
                flows.push_back(&e);
        }
        QCOMPARE(threads[std::make_pair(0, 102)], std::string("DMA engine 2"));
        QCOMPARE(threads[std::make_pair(1, 3)], std::string("sync waits"));
        QVERIFY(dma && wait);
        QCOMPARE((*dma)["name"].get<std::string>(), std::string("dma #0 vmem->vmem chip 1"));
        QCOMPARE((*dma)["pid"].get<int>(), 0);
        QCOMPARE((*dma)["args"]["bytes"].get<int>(), 4096);
        QCOMPARE((*wait)["pid"].get<int>(), 1);
        QCOMPARE(flows.size(), std::size_t(2));
        QCOMPARE((*flows[0])["id"], (*flows[1])["id"]);
        QCOMPARE((*flows[1])["pid"].get<int>(), 1);
        // The wait ends when the DMA ends (microseconds at 1050 MHz).
        const double dmaEnd = (*dma)["ts"].get<double>() + (*dma)["dur"].get<double>();
        const double waitEnd = (*wait)["ts"].get<double>() + (*wait)["dur"].get<double>();
        QVERIFY(std::abs(dmaEnd - waitEnd) < 0.002);
    }

    void endlessProgramsStopAtTheCycleLimit()
    {
        QTemporaryDir dir;
        const QString endless = dir.filePath(QStringLiteral("endless.xasm"));
        test::writeFile(endless.toStdString(), "loop: br loop\nhalt\n");
        const Run r = cli({QStringLiteral("replay"), endless, QStringLiteral("--max-cycles"),
                           QStringLiteral("30000"), QStringLiteral("--summary")});
        QCOMPARE(r.exitCode, 0);
        const std::string path = endless.toStdString();
        QCOMPARE(r.err, path +
                            ": replay stopped at the cycle limit (30,000 cycles); chip 0 still running at pc "
                            "0x0, its most executed bundle pc 0x0 (`br loop`, 10,000 times)\n" +
                            path +
                            ": the results below are partial; --max-cycles and --max-bundles raise the "
                            "limits\n");
        QVERIFY2(r.out.find("chip 0: 10000 bundles") != std::string::npos,
                 r.out.c_str()); // one br per 3 cycles
        QVERIFY(r.out.find("did not halt") != std::string::npos);
        const Run bad =
            cli({QStringLiteral("replay"), endless, QStringLiteral("--max-cycles"), QStringLiteral("lots")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.starts_with(
            "xpushark-cli: replay: --max-cycles needs a whole number (0: no limit), got 'lots'"));
    }

    void analyzeRefusesARunThatDidNotEndAndTakesTheLimits()
    {
        QTemporaryDir dir;
        const QString endless = dir.filePath(QStringLiteral("endless.xasm"));
        test::writeFile(endless.toStdString(), "loop: br loop\nhalt\n");
        const Run r = cli(
            {QStringLiteral("analyze"), endless, QStringLiteral("--max-bundles"), QStringLiteral("5000")});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(
            r.err,
            endless.toStdString() +
                ": replay stopped at the bundle limit (5,000 bundles); chip 0 still running at pc 0x0, its "
                "most executed bundle pc 0x0 (`br loop`, 5,000 times); the program did not end, so there "
                "is nothing whole to analyse (--max-cycles and --max-bundles raise the limits)\n");
        const Run bad =
            cli({QStringLiteral("report"), endless, QStringLiteral("-o"),
                 dir.filePath(QStringLiteral("r.md")), QStringLiteral("--max-cycles"), QStringLiteral("-1")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.starts_with(
                     "xpushark-cli: report: --max-cycles needs a whole number (0: no limit), got '-1'"),
                 bad.err.c_str());
    }

    void interruptStopsTheReplayAndSummarisesWhatRan()
    {
        QTemporaryDir dir;
        const QString endless = dir.filePath(QStringLiteral("endless.xasm"));
        test::writeFile(endless.toStdString(), "loop: br loop\nhalt\n");
        QProcess p;
        p.start(QString::fromLocal8Bit(qgetenv("XPS_CLI")),
                {QStringLiteral("replay"), endless, QStringLiteral("--summary")});
        QVERIFY(p.waitForStarted());
        QTest::qWait(400);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(5000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardError().contains("replay interrupted at cycle"));
        QVERIFY(p.readAllStandardOutput().contains("did not halt"));
    }

    void bundledSamplesAreWhatGenerateWrites()
    {
        QTemporaryDir dir;
        for (const char* workload : {"allgather", "matmul", "decode", "smalltile"})
            for (const char* variant : {"naive", "tuned"}) {
                const QString out = dir.filePath(QStringLiteral("w.xtrace.json"));
                const Run r = cli({QStringLiteral("generate"), QString::fromLatin1(workload),
                                   QStringLiteral("--variant"), QString::fromLatin1(variant),
                                   QStringLiteral("-o"), out});
                QCOMPARE(r.exitCode, 0);
                const std::string sampleName = std::string(workload) + "_" + variant + ".xtrace.json";
                QVERIFY2(test::readFile(out.toStdString()) ==
                             test::readFile(sample(sampleName.c_str()).toStdString()),
                         "resources/samples is stale: regenerate it with xpushark-cli generate");
            }
    }

    void allGatherTunedBeatsNaiveOnTheGrm()
    {
        const Run naive = cli({QStringLiteral("replay"), sample("allgather_naive.xtrace.json")});
        const Run tuned = cli({QStringLiteral("replay"), sample("allgather_tuned.xtrace.json")});
        QCOMPARE(naive.exitCode, 0);
        QCOMPARE(tuned.exitCode, 0);
        // Link-bound: 3 steps of a 1 MiB shard over one 45 GB/s link, against half of it per direction.
        QVERIFY2(naive.out.ends_with(": 76788 cycles\n"), naive.out.c_str());
        QVERIFY2(tuned.out.ends_with(": 40081 cycles\n"), tuned.out.c_str());
    }

    void analyzeJsonAndApplyReproduceTheGain()
    {
        // Four loads queued on one engine: the spread-over-engines suggestion must measure a gain, and the
        // trace `apply` writes must replay to exactly the reported cycles.
        QTemporaryDir dir;
        const std::string source = test::sourceDir() + "/tests/data/unbalanced_dmas.xasm";
        const Run r =
            cli({QStringLiteral("analyze"), QString::fromStdString(source), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        QCOMPARE(j["format"].get<std::string>(), std::string("xpushark-analysis"));
        QCOMPARE(j["version"].get<int>(), 1);
        const std::uint64_t baseline = j["summary"]["total_cycles"].get<std::uint64_t>();
        QCOMPARE(j["dma"]["balance"][0]["engines_used"].get<int>(), 1);
        std::string id;
        std::uint64_t newCycles = 0;
        for (const auto& s : j["suggestions"]) {
            QCOMPARE(s["baseline_cycles"].get<std::uint64_t>(), baseline);
            QVERIFY(s.contains("new_cycles") && s.contains("gain_percent") && s.contains("evidence"));
            if (s["kind"] == "engine-imbalance") {
                QCOMPARE(s["verdict"].get<std::string>(), std::string("improves"));
                QVERIFY(s["outputs_identical"].get<bool>());
                id = s["id"].get<std::string>();
                newCycles = s["new_cycles"].get<std::uint64_t>();
            }
        }
        QVERIFY2(!id.empty(), r.out.c_str());
        // The first suggestion is the best improving program change.
        QCOMPARE(j["suggestions"][0]["id"].get<std::string>(), id);

        const QString fixed = dir.filePath(QStringLiteral("fixed.xtrace.json"));
        const Run applied =
            cli({QStringLiteral("apply"), QString::fromStdString(source), QStringLiteral("--suggestion"),
                 QString::fromStdString(id), QStringLiteral("-o"), fixed});
        QCOMPARE(applied.exitCode, 0);
        const Run replayed = cli({QStringLiteral("replay"), fixed});
        QCOMPARE(replayed.exitCode, 0);
        QVERIFY2(replayed.out.ends_with(": " + std::to_string(newCycles) + " cycles\n"),
                 replayed.out.c_str());

        const Run unknown =
            cli({QStringLiteral("apply"), QString::fromStdString(source), QStringLiteral("--suggestion"),
                 QStringLiteral("S99"), QStringLiteral("-o"), fixed});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.find("no suggestion S99; this trace has S1") != std::string::npos,
                 unknown.err.c_str());
    }

    void analyzeFindsTheAllGatherLinkPattern()
    {
        const Run r = cli({QStringLiteral("analyze"), sample("allgather_naive.xtrace.json"),
                           QStringLiteral("--json"), QStringLiteral("--no-measure")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        QCOMPARE(j["summary"]["total_cycles"].get<std::uint64_t>(), std::uint64_t{76788});
        // A ring of 4 has 8 link directions; the naive variant sends clockwise only.
        QCOMPARE(j["collectives"]["links"].size(), std::size_t{8});
        QCOMPARE(j["collectives"]["used_links"].get<int>(), 4);
        for (const auto& l : j["collectives"]["links"])
            QCOMPARE(l["bytes"].get<std::uint64_t>() > 0, l["link"].get<std::string>().ends_with("+x"));
        // Three steps per chip, each waiting on the incoming shard: the critical path is DMA time.
        QCOMPARE(j["collectives"]["steps"].size(), std::size_t{3});
        const auto& composition = j["critical_path"]["composition"];
        QVERIFY(composition["DMA"].get<double>() > 0.99 * j["critical_path"]["total_cycles"].get<double>());
        QCOMPARE(j["suggestions"][0]["verdict"].get<std::string>(), std::string("not measured"));
    }

    void analyzeAsProfileSeesTheRingAsCommunication()
    {
        // The replay through the profile model: four devices whose whole span is ICI communication (76,788
        // cycles at 1.05 GHz = 73.1 us), none of it overlapped by compute, and a finding that says so.
        const Run r = cli({QStringLiteral("analyze"), sample("allgather_naive.xtrace.json"),
                           QStringLiteral("--json"), QStringLiteral("--as-profile")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        QCOMPARE(j["input_format"].get<std::string>(), std::string("xpushark replay (GRM)"));
        QCOMPARE(j["devices"].size(), std::size_t{4});
        for (const auto& d : j["devices"]) {
            QVERIFY(d["communication_ns"].get<std::int64_t>() > 70'000);
            QCOMPARE(d["communication_exposed_ns"], d["communication_ns"]);
            QCOMPARE(d["compute_ns"].get<std::int64_t>(), std::int64_t{0});
        }
        const auto& path = j["critical_path"];
        QVERIFY(path["by_kind_ns"]["communication"].get<double>() > 0.99 * path["length_ns"].get<double>());
        QCOMPARE(j["findings"][0]["kind"].get<std::string>(), std::string("exposed-communication"));
        const Run text = cli({QStringLiteral("analyze"), sample("allgather_naive.xtrace.json"),
                              QStringLiteral("--as-profile")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.find("ICI transfers on 4 devices are exposed") != std::string::npos,
                 text.out.c_str());
    }

    void analyzeMeasuresTheAllGatherSplitAcrossBothDirections()
    {
        // The paper's All-Gather finding: the naive ring sends every step one way; sending part of each
        // transfer the other way round gains >= 10% with every chip's output bit for bit the same.
        const Run r =
            cli({QStringLiteral("analyze"), sample("allgather_naive.xtrace.json"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        const nlohmann::json* split = nullptr;
        for (const auto& s : j["suggestions"])
            if (s["kind"] == "one-way-ring")
                split = &s;
        QVERIFY(split);
        QCOMPARE((*split)["verdict"].get<std::string>(), std::string("improves"));
        QVERIFY2((*split)["gain_percent"].get<double>() >= 10.0, split->dump().c_str());
        QCOMPARE((*split)["change"]["kind"].get<std::string>(), std::string("split-route"));
        QCOMPARE((*split)["change"]["chips"].size(), std::size_t{4});
        QCOMPARE((*split)["baseline_cycles"].get<std::uint64_t>(), std::uint64_t{76788});
        // It is the first program change: what-ifs rank after the changes a kernel author can make.
        QCOMPARE(j["suggestions"][0]["kind"].get<std::string>(), std::string("one-way-ring"));

        // The tuned variant already uses both directions: no such finding.
        const Run tuned = cli({QStringLiteral("analyze"), sample("allgather_tuned.xtrace.json"),
                               QStringLiteral("--json"), QStringLiteral("--no-measure")});
        QCOMPARE(tuned.exitCode, 0);
        for (const auto& s : nlohmann::json::parse(tuned.out)["suggestions"])
            QVERIFY(s["kind"] != "one-way-ring");
    }

    void analyzeJsonOfTheTunedMatmulClaimsNothing()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("matmul.xtrace.json"));
        QCOMPARE(cli({QStringLiteral("generate"), QStringLiteral("matmul"), QStringLiteral("--variant"),
                      QStringLiteral("tuned"), QStringLiteral("-o"), trace})
                     .exitCode,
                 0);
        const Run r = cli({QStringLiteral("analyze"), trace, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        QVERIFY(j["summary"]["mxu_utilization"].get<double>() > 0.80);
        for (const auto& s : j["suggestions"])
            QVERIFY2(s["gain_percent"].get<double>() <= 1.0, s.dump().c_str());
    }

    void analyzeJsonOfTheNaiveDecodeMeasuresTheHoists()
    {
        const Run r =
            cli({QStringLiteral("analyze"), sample("decode_naive.xtrace.json"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        double best = 0.0;
        for (const auto& s : j["suggestions"])
            if (s["kind"] == "late-dma") {
                QCOMPARE(s["verdict"].get<std::string>(), std::string("improves"));
                QCOMPARE(s["baseline_cycles"].get<std::uint64_t>() - s["new_cycles"].get<std::uint64_t>() > 0,
                         true);
                best = std::max(best, s["gain_percent"].get<double>());
            }
        QVERIFY2(best > 3.0, std::to_string(best).c_str());
        QVERIFY(!j["vmem"]["single_buffered"].empty());
    }

    void analyzeJsonOfSmallTilesMeasuresTheTileSizeWhatIf()
    {
        // The sample remembers how it was generated (info shows it), so the what-if can re-generate it.
        const Run info = cli({QStringLiteral("info"), sample("smalltile_naive.xtrace.json")});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.find("generated: xpushark-cli generate smalltile --variant naive --tile-bytes 8192 "
                               "--total-bytes 4194304") != std::string::npos,
                 info.out.c_str());
        const Run r =
            cli({QStringLiteral("analyze"), sample("smalltile_naive.xtrace.json"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        QVERIFY(j["vmem"]["unused_fraction"].get<double>() > 0.9);
        bool found = false;
        for (const auto& s : j["suggestions"])
            if (s["kind"] == "tile-size") {
                found = true;
                QCOMPARE(s["verdict"].get<std::string>(), std::string("improves"));
                QCOMPARE(s["change"]["kind"].get<std::string>(), std::string("regenerate"));
                QVERIFY(s["gain_percent"].get<double>() > 50.0);
            }
        QVERIFY(found);
    }

    void reportHasEverySectionInEveryFormat()
    {
        QTemporaryDir dir;
        const QString trace = sample("allgather_naive.xtrace.json");
        const auto report = [&](const char* ext) {
            const QString out = dir.filePath(QStringLiteral("report.") + QString::fromLatin1(ext));
            const Run r = cli({QStringLiteral("report"), trace, QStringLiteral("-o"), out});
            if (r.exitCode != 0)
                qFatal("report %s failed: %s", ext, r.err.c_str());
            return out;
        };

        // JSON: the stable form; the ranking puts the largest measured gain first.
        const nlohmann::json j = nlohmann::json::parse(test::readFile(report("json").toStdString()));
        QCOMPARE(j["format"].get<std::string>(), std::string("xpushark-report"));
        QCOMPARE(j["version"].get<int>(), 1);
        QCOMPARE(j["analysis"]["summary"]["total_cycles"].get<std::uint64_t>(), std::uint64_t{76788});
        QVERIFY(j["annotations"].is_array() && j["bookmarks"].is_array());
        const std::string best = j["ranking"][0]["id"].get<std::string>();
        double bestGain = -1e300;
        std::string bestTitle;
        std::string bestId;
        for (const auto& s : j["analysis"]["suggestions"])
            if (s["verdict"] == "improves" && s["gain_percent"].get<double>() > bestGain) {
                bestGain = s["gain_percent"].get<double>();
                bestId = s["id"].get<std::string>();
                bestTitle = s["title"].get<std::string>();
            }
        QCOMPARE(bestId, best);
        QVERIFY2(bestGain > 10.0, "the ICI what-if measures a large gain on the naive All-Gather");

        // HTML: self-contained (no external references), every section, one inline SVG per figure, and
        // balanced tags once the void elements are set aside.
        const std::string html = test::readFile(report("html").toStdString());
        for (const char* id :
             {"summary", "figures", "chips", "regions", "suggestions", "annotations", "bookmarks"})
            QVERIFY2(html.find("id=\"" + std::string(id) + "\"") != std::string::npos, id);
        QVERIFY(html.find("src=\"http") == std::string::npos && html.find("href=") == std::string::npos);
        std::size_t svgs = 0;
        for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
            ++svgs;
        // Three of the report's own, and one of the evidence of each of the top three suggestions, its range
        // outlined.
        QCOMPARE(svgs, std::size_t{6});
        QVERIFY(html.find("<title>evidence</title>") != std::string::npos);
        std::vector<std::string> open;
        for (std::size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
            const std::size_t end = html.find('>', at);
            QVERIFY(end != std::string::npos);
            std::string tag = html.substr(at + 1, end - at - 1);
            if (tag.empty() || tag[0] == '!' || tag.back() == '/')
                continue;
            const bool closing = tag[0] == '/';
            tag = tag.substr(closing ? 1 : 0, tag.find_first_of(" \n", closing ? 1 : 0) - (closing ? 1 : 0));
            if (tag == "meta" || tag == "br" || tag == "img")
                continue;
            if (!closing) {
                open.push_back(tag);
                continue;
            }
            QVERIFY2(!open.empty() && open.back() == tag,
                     qPrintable(QString::fromStdString("unbalanced </" + tag + ">")));
            open.pop_back();
        }
        QVERIFY(open.empty());
        QVERIFY(html.find(bestTitle) != std::string::npos);

        // Markdown: the same sections, the best suggestion first.
        const std::string md = test::readFile(report("md").toStdString());
        for (const char* heading :
             {"## Summary", "## Chips", "## Regions", "## Suggestions", "## Annotations", "## Bookmarks"})
            QVERIFY2(md.find(heading) != std::string::npos, heading);
        QVERIFY(md.find("### 1. " + bestTitle) != std::string::npos);

        // PDF: what a reader's text extraction finds in it.
        QProcess pdftotext;
        pdftotext.start(QStringLiteral("pdftotext"), {report("pdf"), QStringLiteral("-")});
        QVERIFY2(pdftotext.waitForFinished(30000) && pdftotext.exitCode() == 0,
                 "pdftotext (poppler-utils) must read the PDF");
        const std::string text = pdftotext.readAllStandardOutput().toStdString();
        for (const char* words : {"Summary", "Stall cycles by reason", "Chips", "Regions", "Suggestions",
                                  "Annotations", "Bookmarks"})
            QVERIFY2(text.find(words) != std::string::npos, words);
        QVERIFY(text.find("1. " + bestTitle) != std::string::npos);

        // A report that cannot be written says where, and leaves nothing behind.
        const Run bad = cli({QStringLiteral("report"), trace, QStringLiteral("--no-measure"),
                             QStringLiteral("-o"), dir.filePath(QStringLiteral("missing/report.html"))});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.find("missing/report.html") != std::string::npos, bad.err.c_str());
    }

    void reportOfASessionCarriesItsNotesBookmarksAndStates()
    {
        QTemporaryDir dir;
        auto loaded = trace::loadTrace(sample("vector_add.xasm").toStdString());
        QVERIFY(loaded.ok());
        session::Session s;
        s.trace = std::move(loaded).value();
        s.source = sample("vector_add.xasm").toStdString();
        s.annotations.push_back({1, "the first load waits here", 10, 20, session::EventAnchor{0, 16, 0}});
        s.annotations.push_back({2, "steady state starts", 300, 900, std::nullopt});
        s.bookmarks.push_back({"prologue", 0, 120, {}, {}});
        s.suggestions.push_back({"S1", "single-engine", "", session::SuggestionState::Dismissed, nullptr});
        const std::string path = dir.filePath(QStringLiteral("review.xps")).toStdString();
        QVERIFY(session::writeSession(s, path).ok());
        const QString out = dir.filePath(QStringLiteral("review.md"));
        const Run r = cli({QStringLiteral("report"), QString::fromStdString(path),
                           QStringLiteral("--no-measure"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const std::string md = test::readFile(out.toStdString());
        // Each note sits beside the evidence it is pinned in (a suggestion's), not at the end.
        const std::size_t suggestions = md.find("## Suggestions"), annotations = md.find("## Annotations");
        const std::size_t steady = md.find("**Note**, cycles 300-900: steady state starts");
        QVERIFY2(steady != std::string::npos && steady > suggestions && steady < annotations, md.c_str());
        QVERIFY(md.find("2 of 2 appear beside the suggestion or bookmark they are pinned to") !=
                std::string::npos);
        QVERIFY(md.find("- prologue: cycles 0-120") != std::string::npos);
        // Each bookmark has a figure of its time range: the units, engines and links busy in it.
        QVERIFY2(md.find("## Bookmark 1: prologue") != std::string::npos, md.c_str());
        QVERIFY(md.find("| chip 0 scalar |") != std::string::npos &&
                md.find("| chip 0 DMA 0 |") != std::string::npos);
        QVERIFY2(md.find("(S1, ") != std::string::npos && md.find(", dismissed)") != std::string::npos,
                 md.c_str());
        // The anchored note moved to where its event (the first execution of pc 16, the first sync.wait,
        // issued at cycle 75 on the GRM) is in this replay, keeping its length.
        QVERIFY2(md.find("**Note**, cycles 75-85: the first load waits here") != std::string::npos,
                 md.c_str());
    }

    void reportGroupsSuggestionsOfOneKind()
    {
        // decode_naive: 20 of its suggestions hoist one late DMA each (0.9-4.4% alone). The report makes them
        // one entry, measured with all of them applied together, members listed inside.
        QTemporaryDir dir;
        const QString trace = sample("decode_naive.xtrace.json");
        const QString json = dir.filePath(QStringLiteral("r.json"));
        const Run r = cli({QStringLiteral("report"), trace, QStringLiteral("-o"), json});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const nlohmann::json j = nlohmann::json::parse(test::readFile(json.toStdString()));
        std::map<std::string, double> alone;
        for (const auto& s : j["analysis"]["suggestions"])
            alone[s["id"].get<std::string>()] =
                s["verdict"] == "improves" ? s["gain_percent"].get<double>() : 0.0;
        QVERIFY(j["ranking"].size() < alone.size());
        const nlohmann::json* group = nullptr;
        for (const auto& e : j["ranking"])
            if (e.contains("members"))
                group = &e;
        QVERIFY(group);
        QCOMPARE((*group)["kind"].get<std::string>(), std::string("late-dma"));
        QVERIFY((*group)["members"].size() >= 20);
        QCOMPARE((*group)["combined"]["verdict"].get<std::string>(), std::string("improves"));
        double best = 0, sum = 0;
        for (const auto& id : (*group)["members"]) {
            best = std::max(best, alone.at(id.get<std::string>()));
            sum += alone.at(id.get<std::string>());
        }
        const double together = (*group)["combined"]["gain_percent"].get<double>();
        QVERIFY2(together > best,
                 qPrintable(QStringLiteral("together %1%, best alone %2%").arg(together).arg(best)));
        QVERIFY(together <= sum + 1e-9);
        QVERIFY((*group)["together"].get<std::string>().find("applied together") != std::string::npos);
        // Ranked by the combined gain: above every suggestion that gains less on its own.
        const int rank = (*group)["rank"].get<int>();
        for (const auto& e : j["ranking"])
            if (!e.contains("members") && e["rank"].get<int>() > rank)
                QVERIFY(alone.at(e["id"].get<std::string>()) <= together);

        // Printed: region names whole (QTextDocument broke them mid-word in narrow cells), one entry for the
        // group.
        const QString pdf = dir.filePath(QStringLiteral("r.pdf"));
        QVERIFY(cli({QStringLiteral("report"), trace, QStringLiteral("-o"), pdf}).exitCode == 0);
        QProcess pdftotext;
        pdftotext.start(QStringLiteral("pdftotext"), {pdf, QStringLiteral("-")});
        QVERIFY(pdftotext.waitForFinished(30000) && pdftotext.exitCode() == 0);
        const std::string text = pdftotext.readAllStandardOutput().toStdString();
        for (const char* region : {"qkv_projection", "output_projection", "attention", "mlp_down"})
            QVERIFY2(text.find(region) != std::string::npos, region);
        QVERIFY(text.find("Issue 20 DMAs earlier") != std::string::npos);
    }

    void importedProfileInfoAnalyzeAndConvert()
    {
        const QString step = QString::fromStdString(test::sourceDir() + "/tests/data/kineto_step.json");
        const Run info = cli({QStringLiteral("info"), step});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.find("PyTorch profiler (Kineto) JSON") != std::string::npos, info.out.c_str());
        QVERIFY(info.out.find("tracks: 2 processes, 1 host threads, 2 device streams") != std::string::npos);
        QVERIFY(info.out.find("events: 19 slices, 0 counter samples, 6 flows") != std::string::npos);

        const Run text = cli({QStringLiteral("analyze"), step});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.find("critical path 0.485 ms") != std::string::npos, text.out.c_str());
        QVERIFY(text.out.find("F1 [exposed-memcpy]") != std::string::npos);

        const Run json = cli({QStringLiteral("analyze"), QStringLiteral("--json"), step});
        QCOMPARE(json.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(json.out);
        QCOMPARE(j["format"].get<std::string>(), std::string("xpushark-profile-analysis"));
        QCOMPARE(j["span_ns"].get<std::int64_t>(), std::int64_t(1000000));
        QCOMPARE(j["devices"][0]["memcpy_exposed_ns"].get<std::int64_t>(), std::int64_t(200000));
        QCOMPARE(j["critical_path"]["length_ns"].get<std::int64_t>(), std::int64_t(485000));
        QCOMPARE(j["findings"].size(), std::size_t(3));
        QCOMPARE(j["findings"][0]["kind"].get<std::string>(), std::string("exposed-memcpy"));

        // The critical path of one step: the kineto step's ProfilerStep#1 holds everything (the same 485 us);
        // a name no slice has is an error naming it; --window on a trace is a usage error.
        const Run windowed = cli({QStringLiteral("analyze"), QStringLiteral("--json"),
                                  QStringLiteral("--window"), QStringLiteral("ProfilerStep#1"), step});
        QCOMPARE(windowed.exitCode, 0);
        const nlohmann::json w = nlohmann::json::parse(windowed.out);
        QCOMPARE(w["critical_path"]["window_ns"][0].get<std::int64_t>(), std::int64_t(0));
        QCOMPARE(w["critical_path"]["window_ns"][1].get<std::int64_t>(), std::int64_t(1000000));
        QCOMPARE(w["critical_path"]["length_ns"].get<std::int64_t>(), std::int64_t(485000));
        const Run noSuch =
            cli({QStringLiteral("analyze"), QStringLiteral("--window"), QStringLiteral("Step#9"), step});
        QCOMPARE(noSuch.exitCode, 1);
        QVERIFY2(noSuch.err.find("no slice is named 'Step#9'") != std::string::npos, noSuch.err.c_str());
        const Run onTrace =
            cli({QStringLiteral("analyze"), QStringLiteral("--window"), QStringLiteral("x"),
                 QString::fromStdString(test::sourceDir() + "/resources/samples/matmul_naive.xtrace.json")});
        QCOMPARE(onTrace.exitCode, 2);

        // To Chrome JSON and back: the same analysis.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("step.perfetto.json"));
        const Run convert = cli({QStringLiteral("convert"), step, QStringLiteral("-o"), out});
        QCOMPARE(convert.exitCode, 0);
        QVERIFY(convert.out.find("19 slices, 0 counter samples, 6 flows") != std::string::npos);
        const Run again = cli({QStringLiteral("analyze"), QStringLiteral("--json"), out});
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(nlohmann::json::parse(again.out)["critical_path"], j["critical_path"]);

        // A profile converts only to Chrome JSON.
        const Run wrong = cli(
            {QStringLiteral("convert"), step, QStringLiteral("-o"), dir.filePath(QStringLiteral("x.xps"))});
        QCOMPARE(wrong.exitCode, 2);
        QVERIFY(wrong.err.find("name the output OUT.json") != std::string::npos);
    }

    void convertToChromeReplaysAndOpensAsAProfile()
    {
        // An xpushark trace to Chrome JSON: replayed, exported, and readable by the profile importer.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("vector_add.perfetto.json"));
        const Run convert = cli({QStringLiteral("convert"), sample("vector_add.xasm"), QStringLiteral("--to"),
                                 QStringLiteral("chrome"), QStringLiteral("-o"), out});
        QCOMPARE(convert.exitCode, 0);
        QVERIFY2(convert.out.find("(the replay: ") != std::string::npos, convert.out.c_str());
        const Run info = cli({QStringLiteral("info"), out});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.find("Chrome trace JSON") != std::string::npos, info.out.c_str());
        QVERIFY(info.out.find("process 0 \"chip 0\"") != std::string::npos);
        QVERIFY(info.out.find(" flows;") != std::string::npos &&
                info.out.find(" 0 flows;") == std::string::npos);
        expectUsageError({QStringLiteral("convert"), sample("vector_add.xasm"), QStringLiteral("--to"),
                          QStringLiteral("svg"), QStringLiteral("-o"), out},
                         "xpushark-cli: convert: --to: unknown format 'svg'; expected chrome");
    }

    void brokenProfileNamesLineAndColumn()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        test::writeFile(path.toStdString(),
                        "{\"traceEvents\": [\n  {\"ph\": \"X\", \"ts\": 1 \"dur\": 2}\n]}\n");
        const Run r = cli({QStringLiteral("analyze"), path});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err,
                 path.toStdString() + ":2:23: expected ',' or '}' after an object member, found '\"'\n");
        QVERIFY(r.out.empty());
    }

    void generateErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("error");
        QTest::newRow("workload typo")
            << QStringList{QStringLiteral("allgathr"), QStringLiteral("-o"), QStringLiteral("x.json")}
            << QByteArray("xpushark-cli: generate: unknown workload 'allgathr'; did you mean 'allgather'?");
        QTest::newRow("variant")
            << QStringList{QStringLiteral("allgather"), QStringLiteral("--variant"), QStringLiteral("fast"),
                           QStringLiteral("-o"), QStringLiteral("x.json")}
            << QByteArray("xpushark-cli: generate: allgather: unknown variant 'fast': expected naive, tuned");
        QTest::newRow("range") << QStringList{QStringLiteral("allgather"), QStringLiteral("--chips"),
                                              QStringLiteral("1"), QStringLiteral("-o"),
                                              QStringLiteral("x.json")}
                               << QByteArray(
                                      "xpushark-cli: generate: allgather: chips must be from 2 to 64, got 1");
        QTest::newRow("parameter typo")
            << QStringList{QStringLiteral("allgather"), QStringLiteral("--chip"), QStringLiteral("4"),
                           QStringLiteral("-o"), QStringLiteral("x.json")}
            << QByteArray(
                   "xpushark-cli: generate: allgather: unknown parameter 'chip'; did you mean 'chips'?");
        QTest::newRow("divisibility")
            << QStringList{QStringLiteral("allgather"), QStringLiteral("--shard-bytes"),
                           QStringLiteral("3000"), QStringLiteral("-o"), QStringLiteral("x.json")}
            << QByteArray("xpushark-cli: generate: allgather: shard_bytes (3000) must be a multiple of 2 x "
                          "chunk_bytes (131072)");
        QTest::newRow("not a number")
            << QStringList{QStringLiteral("allgather"), QStringLiteral("--chips"), QStringLiteral("four"),
                           QStringLiteral("-o"), QStringLiteral("x.json")}
            << QByteArray("xpushark-cli: generate: --chips needs a whole number, got 'four'");
    }
    void generateErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, error);
        expectUsageError(QStringList{QStringLiteral("generate")} + args, error);
    }

    void replayErrors()
    {
        QTemporaryDir dir;
        const QString deadlock = dir.filePath(QStringLiteral("deadlock.xasm"));
        test::writeFile(deadlock.toStdString(), "sync.wait 1, 1\nhalt\n");
        const Run r = cli({QStringLiteral("replay"), deadlock});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err,
                 deadlock.toStdString() +
                     ": replay stopped: chip 0, pc 0x0, cycle 0 (`sync.wait 1, 1`): deadlock: every running "
                     "chip waits on something nothing in flight can change; chip 0 at pc 0x0 waits for flag "
                     "1 >= 1, flag is 0\n");
        const Run mode =
            cli({QStringLiteral("replay"), deadlock, QStringLiteral("--mode"), QStringLiteral("fast")});
        QCOMPARE(mode.exitCode, 2);
        QVERIFY(mode.err.starts_with("xpushark-cli: replay: unknown mode 'fast'; expected full or timing"));
    }

    void installScriptIsIdempotent()
    {
        // The suite runs after the script installed everything, so a second run must install nothing.
        const QString script = QString::fromStdString(test::sourceDir() + "/scripts/install-deps.sh");
        const Run r = runProgram(QStringLiteral("bash"), {script});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("already installed") != std::string::npos, (r.out + r.err).c_str());
        QVERIFY(r.out.find("installing") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
