// xpushark-cli as a user runs it: exit codes, what it prints for good and bad input, conversions that
// reproduce the trace, and the install script's idempotency.
#include "cli_test_support.h"

#include "session/session.h"
#include "trace/trace_io.h"

#include <QDir>
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

// `arguments` followed by each value in turn is a usage error (exit code 2) whose message starts with
// `message` and the value, quoted.
void expectEachRefused(const QStringList& arguments, std::initializer_list<const char*> values,
                       const std::string& message)
{
    for (const char* value : values) {
        const Run refused = cli(arguments + QStringList{QString::fromLatin1(value)});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.starts_with(message + value + "'"), refused.err.c_str());
    }
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
                          "FORMAT] [--no-measure] [--threads N] [--baseline BASELINE]");
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
        // A command's --help, wherever it stands, is that command's usage (both of analyze's), not an error
        // about an option it does not take (generate read it as a parameter wanting a number).
        const Run analyze =
            cli({QStringLiteral("analyze"), QStringLiteral("x.json"), QStringLiteral("--help")});
        QCOMPARE(analyze.exitCode, 0);
        QVERIFY2(analyze.out.starts_with("usage:\n  xpushark-cli analyze TRACE [--json]"),
                 analyze.out.c_str());
        QVERIFY(analyze.out.find("  xpushark-cli analyze PROFILE [--json] [--window NAME]") !=
                std::string::npos);
        QVERIFY(analyze.out.find("apply TRACE") == std::string::npos);
        QVERIFY(analyze.err.empty());
        const Run generate = cli({QStringLiteral("generate"), QStringLiteral("-h")});
        QCOMPARE(generate.exitCode, 0);
        QVERIFY2(generate.out.find("xpushark-cli generate WORKLOAD") != std::string::npos,
                 generate.out.c_str());
        // Not a command: the error it always was.
        const Run unknown = cli({QStringLiteral("frobnicate"), QStringLiteral("--help")});
        QVERIFY(unknown.exitCode != 0);
        QVERIFY2(unknown.err.find("frobnicate") != std::string::npos, unknown.err.c_str());
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
        // The one exporter's rows of a replay (docs/import.md, "Export"): DMA engine E is tid 10 + E, the
        // sync waits follow the last engine (4 by default), bundles are tid 5.
        std::map<std::pair<int, int>, std::string> threads;
        const nlohmann::json* dma = nullptr;
        const nlohmann::json* wait = nullptr;
        std::map<int, std::vector<const nlohmann::json*>> flows; // by id
        std::size_t bundles = 0;
        for (const auto& e : doc["traceEvents"]) {
            if (e["ph"] == "M" && e["name"] == "thread_name")
                threads[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
            if (e["ph"] == "X" && e.value("cat", "") == "dma")
                dma = &e;
            if (e["ph"] == "X" && e["name"] == "sync.wait")
                wait = &e;
            if (e["ph"] == "X" && e.value("cat", "") == "bundle")
                ++bundles;
            if ((e["ph"] == "s" || e["ph"] == "f") && e["name"] == "ends wait")
                flows[e["id"].get<int>()].push_back(&e);
        }
        QCOMPARE(threads[std::make_pair(0, 12)], std::string("DMA engine 2"));
        QCOMPARE(threads[std::make_pair(1, 14)], std::string("sync waits"));
        QCOMPARE(threads[std::make_pair(0, 5)], std::string("bundles"));
        QCOMPARE(threads[std::make_pair(1, 6)], std::string("stalls"));
        QCOMPARE(bundles, std::size_t(4)); // dma.start and halt on chip 0, sync.wait and halt on chip 1
        QVERIFY(dma && wait);
        QCOMPARE((*dma)["name"].get<std::string>(), std::string("DMA ICI"));
        QCOMPARE((*dma)["pid"].get<int>(), 0);
        QCOMPARE((*dma)["args"]["dma"].get<int>(), 0);
        QCOMPARE((*dma)["args"]["bytes"].get<int>(), 4096);
        QCOMPARE((*dma)["args"]["to chip"].get<int>(), 1);
        QCOMPARE((*dma)["args"]["dst"].get<std::string>(), std::string("0x1000"));
        QCOMPARE((*wait)["pid"].get<int>(), 1);
        // The DMA ended the wait: one flow from the engine's row to the waits' row.
        QCOMPARE(flows.size(), std::size_t(1));
        const auto& arrow = flows.begin()->second;
        QCOMPARE(arrow.size(), std::size_t(2));
        QCOMPARE((*arrow[0])["ph"].get<std::string>(), std::string("s"));
        QCOMPARE((*arrow[0])["tid"].get<int>(), 12);
        QCOMPARE((*arrow[1])["pid"].get<int>(), 1);
        QCOMPARE((*arrow[1])["tid"].get<int>(), 14);
        // The wait ends when the DMA ends (microseconds, the replay's nanoseconds exactly).
        const double dmaEnd = (*dma)["ts"].get<double>() + (*dma)["dur"].get<double>();
        const double waitEnd = (*wait)["ts"].get<double>() + (*wait)["dur"].get<double>();
        QVERIFY(std::abs(dmaEnd - waitEnd) < 0.0005);
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
                            ": the results below are partial; --max-cycles raises that limit (0: none)\n");
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
                "is nothing whole to analyse (--max-bundles raises that limit; 0: none)\n");
        const Run bad =
            cli({QStringLiteral("report"), endless, QStringLiteral("-o"),
                 dir.filePath(QStringLiteral("r.md")), QStringLiteral("--max-cycles"), QStringLiteral("-1")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.starts_with(
                     "xpushark-cli: report: --max-cycles needs a whole number (0: no limit), got '-1'"),
                 bad.err.c_str());
    }

    // --threads N bounds the what-ifs replayed side by side; the measurements do not depend on it (the
    // JSON is the same byte for byte), and a count that is not one is refused before anything replays.
    void threadsBoundTheMeasuringWithoutChangingIt()
    {
        const Run one = cli({QStringLiteral("analyze"), sample("decode_naive.xtrace.json"),
                             QStringLiteral("--json"), QStringLiteral("--threads"), QStringLiteral("1")});
        const Run two = cli({QStringLiteral("analyze"), sample("decode_naive.xtrace.json"),
                             QStringLiteral("--json"), QStringLiteral("--threads"), QStringLiteral("2")});
        QCOMPARE(one.exitCode, 0);
        QCOMPARE(two.exitCode, 0);
        QVERIFY(one.out.find("\"verdict\": \"improves\"") != std::string::npos); // measured, not estimated
        QCOMPARE(one.out, two.out);
        expectEachRefused({QStringLiteral("report"), sample("decode_naive.xtrace.json"), QStringLiteral("-o"),
                           QStringLiteral("never.md"), QStringLiteral("--threads")},
                          {"0", "257", "-1", "two", ""},
                          "xpushark-cli: report: --threads needs a whole number of threads in 1..256, got '");
    }

    // With the cycle and bundle limits off, --max-memory stops a program that never ends once its events
    // take that much, and says which option raises it; a size that is not one is refused, naming it.
    void endlessProgramsStopAtTheMemoryLimit()
    {
        QTemporaryDir dir;
        const QString endless = dir.filePath(QStringLiteral("endless.xasm"));
        test::writeFile(endless.toStdString(), "loop: br loop\nhalt\n");
        const Run r = cli({QStringLiteral("replay"), endless, QStringLiteral("--max-cycles"),
                           QStringLiteral("0"), QStringLiteral("--max-bundles"), QStringLiteral("0"),
                           QStringLiteral("--max-memory"), QStringLiteral("8M")});
        QCOMPARE(r.exitCode, 0);
        const std::string path = endless.toStdString();
        QVERIFY2(r.err.starts_with(path +
                                   ": replay stopped at the memory limit (8 MiB of events); chip 0 still "
                                   "running at pc 0x0, its most executed bundle pc 0x0 (`br loop`, "),
                 r.err.c_str());
        QVERIFY2(r.err.ends_with(
                     path + ": the results below are partial; --max-memory raises that limit (0: none)\n"),
                 r.err.c_str());
        expectEachRefused(
            {QStringLiteral("analyze"), endless, QStringLiteral("--max-memory")},
            {"lots", "8GB", "1.5", "-1", "99999999999999999999"},
            "xpushark-cli: analyze: --max-memory needs a size in bytes, such as 8G, 512MiB or 1.5G "
            "(0: no limit), got '");
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

    // Ctrl-C while a large profile converts to Chrome JSON: it stops (the import or the export, whichever is
    // running), writes nothing, leaves the file already at OUT as it was, and exits 130 as a shell expects.
    void interruptStopsAConversionAndWritesNothing()
    {
        QTemporaryDir dir;
        const QString big = dir.filePath(QStringLiteral("big.json"));
        {
            std::string json = "[";
            json.reserve(70u << 20);
            for (int i = 0; i < 600000; ++i)
                json += (i ? ",\n" : "") +
                        std::string(R"({"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":)") +
                        std::to_string(i * 10) + R"(,"dur":5,"args":{"correlation":)" + std::to_string(i) +
                        R"(,"stream":7,"grid":[1,1,1]}})";
            test::writeFile(big.toStdString(), json + "]");
        }
        const QString out = dir.filePath(QStringLiteral("out.json"));
        test::writeFile(out.toStdString(), "the previous export");
        QProcess p;
        p.start(QString::fromLocal8Bit(qgetenv("XPS_CLI")),
                {QStringLiteral("convert"), big, QStringLiteral("-o"), out});
        QVERIFY(p.waitForStarted());
        QTest::qWait(250);
        QCOMPARE(p.state(), QProcess::Running); // still importing: the signal lands mid-work
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(10000));
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 130);
        QVERIFY2(err.contains("import interrupted") ||
                     err.contains("export interrupted; nothing was written"),
                 err.constData());
        QCOMPARE(test::readFile(out.toStdString()), std::string("the previous export"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2); // no temporary file left behind
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
        QVERIFY2(text.out.find("critical path 0.495 ms") != std::string::npos, text.out.c_str());
        QVERIFY(text.out.find("F1 [exposed-memcpy]") != std::string::npos);

        const Run json = cli({QStringLiteral("analyze"), QStringLiteral("--json"), step});
        QCOMPARE(json.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(json.out);
        QCOMPARE(j["format"].get<std::string>(), std::string("xpushark-profile-analysis"));
        QCOMPARE(j["span_ns"].get<std::int64_t>(), std::int64_t(1000000));
        QCOMPARE(j["devices"][0]["memcpy_exposed_ns"].get<std::int64_t>(), std::int64_t(200000));
        QCOMPARE(j["critical_path"]["length_ns"].get<std::int64_t>(), std::int64_t(495000));
        QCOMPARE(j["findings"].size(), std::size_t(3));
        QCOMPARE(j["findings"][0]["kind"].get<std::string>(), std::string("exposed-memcpy"));

        // The critical path of one step: the kineto step's ProfilerStep#1 holds everything (the same 495 us);
        // a name no slice has is an error naming it; --window on a trace is a usage error.
        const Run windowed = cli({QStringLiteral("analyze"), QStringLiteral("--json"),
                                  QStringLiteral("--window"), QStringLiteral("ProfilerStep#1"), step});
        QCOMPARE(windowed.exitCode, 0);
        const nlohmann::json w = nlohmann::json::parse(windowed.out);
        QCOMPARE(w["critical_path"]["window_ns"][0].get<std::int64_t>(), std::int64_t(0));
        QCOMPARE(w["critical_path"]["window_ns"][1].get<std::int64_t>(), std::int64_t(1000000));
        QCOMPARE(w["critical_path"]["length_ns"].get<std::int64_t>(), std::int64_t(495000));
        // The operations of one step too, as HTA takes an iteration's: in HTA's trace_compare base, one of
        // the two nccl:all_reduce calls is in ProfilerStep#1010, and of the GPU work only the kernel launched
        // inside it.
        const QString twoSteps =
            QString::fromStdString(test::sourceDir() + "/tests/data/hta/trace_compare/base.json.gz");
        const auto opCount = [](const nlohmann::json& analysis, const std::string& name) {
            for (const auto& op : analysis["ops"])
                if (op["name"] == name)
                    return op["count"].get<std::int64_t>();
            return std::int64_t{0};
        };
        const nlohmann::json whole =
            nlohmann::json::parse(cli({QStringLiteral("analyze"), QStringLiteral("--json"), twoSteps}).out);
        const nlohmann::json step1010 = nlohmann::json::parse(
            cli({QStringLiteral("analyze"), QStringLiteral("--json"), QStringLiteral("--window"),
                 QStringLiteral("ProfilerStep#1010"), twoSteps})
                .out);
        QCOMPARE(opCount(whole, "nccl:all_reduce"), std::int64_t{2});
        QCOMPARE(opCount(step1010, "nccl:all_reduce"), std::int64_t{1});
        QCOMPARE(opCount(step1010, "ProfilerStep#1009"), std::int64_t{0});
        std::int64_t deviceOps = 0;
        for (const auto& op : step1010["ops"])
            deviceOps += op["device"].is_null() ? 0 : op["count"].get<std::int64_t>();
        QCOMPARE(deviceOps, std::int64_t{1});

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
