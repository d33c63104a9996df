// `xpushark-cli report A --baseline B`: the report's comparison is the diff
// `xpushark-cli diff B A` computes, number for number, on every naive/tuned sample pair and on two imported
// profiles; the text forms say it (the verdict, the totals, the largest change first, the figures of both
// runs); wrong invocations are named.
#include "cli_test_support.h"

#include <QTemporaryDir>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace xps;

namespace {

using test::cli;
using test::Run;
using test::sample;

std::string readFile(const QString& path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

// "1,234,567", as the report writes counts.
std::string thousands(std::int64_t v)
{
    std::string digits = std::to_string(v < 0 ? -v : v);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return (v < 0 ? "-" : "") + digits;
}

std::string signedThousands(std::int64_t v)
{
    return (v > 0 ? "+" : "") + thousands(v);
}

} // namespace

class TestCliReportBaseline : public QObject
{
    Q_OBJECT

private slots:
    void theComparisonIsTheDiff_data() { test::addSamplePairRows(); }
    void theComparisonIsTheDiff()
    {
        QFETCH(QString, pair);
        const QString naive = sample(pair + QStringLiteral("_naive.xtrace.json"));
        const QString tuned = sample(pair + QStringLiteral("_tuned.xtrace.json"));
        QTemporaryDir dir;
        const QString json = dir.filePath(QStringLiteral("r.json")),
                      md = dir.filePath(QStringLiteral("r.md")),
                      html = dir.filePath(QStringLiteral("r.html"));
        for (const QString& out : {json, md, html}) {
            const Run r = cli({QStringLiteral("report"), tuned, QStringLiteral("--baseline"), naive,
                               QStringLiteral("-o"), out, QStringLiteral("--no-measure")});
            QVERIFY2(r.exitCode == 0, r.err.c_str());
            QVERIFY2(contains(r.out, "compared with " + naive.toStdString() + ": This run took "),
                     r.out.c_str());
        }
        const Run diff = cli({QStringLiteral("diff"), naive, tuned, QStringLiteral("--json")});
        QCOMPARE(diff.exitCode, 0);
        const nlohmann::json d = nlohmann::json::parse(diff.out);

        // The JSON report carries the diff itself, and the report's own analysis is the other run's.
        const nlohmann::json report = nlohmann::json::parse(readFile(json));
        QCOMPARE(report["comparison"]["diff"], d);
        QCOMPARE(report["comparison"]["baseline"].get<std::string>(), naive.toStdString());
        QCOMPARE(report["analysis"]["summary"]["total_cycles"], d["totals"]["cycles"]["other"]);
        QVERIFY(contains(report["title"].get<std::string>(), "compared with its baseline"));

        // The Markdown says the same numbers: the verdict, the totals row, the largest region change first.
        const std::string text = readFile(md);
        const auto cycles = d["totals"]["cycles"];
        const std::int64_t delta = cycles["delta"].get<std::int64_t>();
        QVERIFY2(contains(text, "## Compared with the baseline\n\nBaseline: `" + naive.toStdString() + "`"),
                 text.c_str());
        QVERIFY(contains(text, "This run took " + thousands(cycles["other"].get<std::int64_t>()) +
                                   " cycles against the baseline's " +
                                   thousands(cycles["baseline"].get<std::int64_t>())));
        QVERIFY(contains(text, std::string(delta < 0 ? " faster (" : " slower (") + signedThousands(delta) +
                                   " cycles)."));
        QVERIFY2(contains(text, "| cycles | " + thousands(cycles["baseline"].get<std::int64_t>()) + " | " +
                                    thousands(cycles["other"].get<std::int64_t>()) + " | " +
                                    signedThousands(delta) + " |"),
                 text.c_str());
        const auto& top = d["regions"][0];
        if (top["cycles"]["delta"].get<std::int64_t>() != 0)
            QVERIFY2(contains(text, "### Largest changes\n\n1. Region " + top["path"].get<std::string>() +
                                        " (" + top["level"].get<std::string>() + "): " +
                                        thousands(top["cycles"]["baseline"].get<std::int64_t>()) + " -> " +
                                        thousands(top["cycles"]["other"].get<std::int64_t>()) + " cycles"),
                     text.c_str());
        // A chip whose programs could not be matched is said so (matmul's tuned kernel is another program).
        bool allAligned = true;
        for (const auto& chip : d["alignment"])
            allAligned = allAligned && chip["aligned"].get<bool>();
        QCOMPARE(contains(text, "differ in too many bundles to match them"), !allAligned);
        if (allAligned && !d["pcs"].empty())
            QVERIFY(contains(text, "Bundle `" + d["pcs"][0]["bundle"].get<std::string>() + "`"));

        // The HTML draws both runs' bars: the stall figure's two rows, the regions that changed most.
        const std::string page = readFile(html);
        QVERIFY(contains(page, "<section id=\"comparison\">"));
        QVERIFY(contains(page, "<figure id=\"figure-comparison-stalls\">"));
        QVERIFY(contains(page, ">stalls · baseline</text>"));
        QVERIFY(contains(page, ">stalls · this run</text>"));
        if (top["cycles"]["delta"].get<std::int64_t>() != 0)
            QVERIFY(contains(page, "<figure id=\"figure-comparison-regions\">"));
    }

    void twoProfilesAreComparedByOperation()
    {
        QTemporaryDir dir;
        const QString base = QString::fromStdString(test::sourceDir() + "/tests/data/kineto_step.json");
        const QString slower = test::writeSlowerKinetoStep(dir);
        const QString json = dir.filePath(QStringLiteral("p.json")),
                      md = dir.filePath(QStringLiteral("p.md"));
        for (const QString& out : {json, md})
            QCOMPARE(cli({QStringLiteral("report"), slower, QStringLiteral("--baseline"), base,
                          QStringLiteral("-o"), out})
                         .exitCode,
                     0);
        const Run diff = cli({QStringLiteral("diff"), base, slower, QStringLiteral("--json")});
        const nlohmann::json report = nlohmann::json::parse(readFile(json));
        QCOMPARE(report["comparison"]["diff"], nlohmann::json::parse(diff.out));
        QCOMPARE(report["kind"].get<std::string>(), std::string("imported-profile"));

        const std::string text = readFile(md);
        QVERIFY2(contains(text, "This profile spans 1100.0 us against the baseline's 1000.0 us: 10.0% longer "
                                "(+100.0 us)."),
                 text.c_str());
        QVERIFY(contains(text, "| span | 1000.0 us | 1100.0 us | +100.0 us | +10.0% |"));
        QVERIFY(contains(text, "| &nbsp;&nbsp;compute | 400.0 us | 520.0 us | +120.0 us | +30.0% |"));
        QVERIFY2(contains(text, "1. Operation sgemm_128x64 (kernel, on GPU 0): total 380.0 us -> 500.0 us "
                                "(+31.6%)."),
                 text.c_str());
        QVERIFY(contains(text,
                         "2. Operation ProfilerStep#1 (user_annotation, on the host): total 1000.0 us -> "
                         "1100.0 us (+10.0%)."));
        QVERIFY(contains(text, "| sgemm_128x64 | GPU 0 | 2 | 380.0 us | 500.0 us | +120.0 us | +31.6% |"));
        QVERIFY(contains(text, "| sgemm_128x64 · this run | 500.0 | +120.0 us |"));
        // The two critical paths side by side (the numbers are the diff's: tst_cli_diff holds them to each
        // profile's own analysis).
        QVERIFY2(contains(text, "### Critical paths side by side"), text.c_str());
        QVERIFY(contains(text, "| length | 495.0 us | 545.0 us | +50.0 us | +10.1% |"));
        QVERIFY(contains(text,
                         "| on the path: sgemm_128x64 (kernel) | 180.0 us | 240.0 us | +60.0 us | +33.3% |"));
    }

    void aTraceBesideAProfileIsComparedAsDiffComparesThem()
    {
        // The tuned sample's replay exported stands for a measured profile; the naive trace's replay is
        // compared as its profile, whichever side it is on, and the report's comparison is the diff's.
        QTemporaryDir dir;
        const QString trace = sample(QStringLiteral("decode_naive.xtrace.json"));
        const QString profile = test::exportTunedDecode(dir);
        for (const bool traceReported : {true, false}) {
            const QString path = traceReported ? trace : profile, baseline = traceReported ? profile : trace;
            const QString json = dir.filePath(QStringLiteral("r.json"));
            const Run r = cli({QStringLiteral("report"), path, QStringLiteral("--baseline"), baseline,
                               QStringLiteral("-o"), json, QStringLiteral("--no-measure")});
            QVERIFY2(r.exitCode == 0, r.err.c_str());
            const nlohmann::json report = nlohmann::json::parse(readFile(json));
            const Run diff = cli({QStringLiteral("diff"), baseline, path, QStringLiteral("--json")});
            QCOMPARE(report["comparison"]["diff"], nlohmann::json::parse(diff.out));
            QCOMPARE(report["kind"].get<std::string>(),
                     std::string(traceReported ? "replay" : "imported-profile"));
            QCOMPARE(report["comparison"]["diff"]["kind"].get<std::string>(), std::string("profiles"));
        }
    }

    void thePdfIsWritten()
    {
        QTemporaryDir dir;
        const QString pdf = dir.filePath(QStringLiteral("r.pdf"));
        const Run r = cli({QStringLiteral("report"), sample(QStringLiteral("decode_tuned.xtrace.json")),
                           QStringLiteral("--baseline"), sample(QStringLiteral("decode_naive.xtrace.json")),
                           QStringLiteral("-o"), pdf, QStringLiteral("--no-measure")});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const std::string bytes = readFile(pdf);
        QVERIFY(bytes.rfind("%PDF-", 0) == 0);
        QVERIFY(bytes.size() > 10000);
    }

    void wrongInvocationsAreNamed()
    {
        const QString trace = sample(QStringLiteral("decode_tuned.xtrace.json"));
        const QString profile = QString::fromStdString(test::sourceDir() + "/tests/data/kineto_step.json");
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("r.md"));

        Run r =
            cli({QStringLiteral("report"), trace, QStringLiteral("-o"), out, QStringLiteral("--baseline")});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err, std::string("xpushark-cli: report: --baseline needs a value\n(run `xpushark-cli "
                                    "--help` for usage)\n"));

        // A trace beside a profile is compared as its replay's profile: only a whole run is one.
        r = cli({QStringLiteral("report"), trace, QStringLiteral("--baseline"), profile, QStringLiteral("-o"),
                 out, QStringLiteral("--max-cycles"), QStringLiteral("1000")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(contains(r.err, "replay stopped at "), r.err.c_str());
        QVERIFY(!QFile::exists(out));

        const QString missing = dir.filePath(QStringLiteral("missing.xtrace.json"));
        r = cli({QStringLiteral("report"), trace, QStringLiteral("--baseline"), missing, QStringLiteral("-o"),
                 out, QStringLiteral("--no-measure")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(contains(r.err, missing.toStdString()), r.err.c_str());
        QVERIFY(!QFile::exists(out)); // nothing half-written

        // A profile baseline that cannot be read is said before the trace is replayed and its suggestions
        // measured (seconds), with where it breaks.
        const QString broken = dir.filePath(QStringLiteral("broken.json"));
        test::writeFile(broken.toStdString(), "{\"traceEvents\": [ {\"ph\": \"X\", \"name\": ");
        r = cli({QStringLiteral("report"), trace, QStringLiteral("--baseline"), broken, QStringLiteral("-o"),
                 out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(contains(r.err, broken.toStdString() + ":1:39: the file ends where a value was expected"),
                 r.err.c_str());
        QVERIFY(!QFile::exists(out));

        const QString missingProfile = dir.filePath(QStringLiteral("missing.json"));
        r = cli({QStringLiteral("report"), profile, QStringLiteral("--baseline"), missingProfile,
                 QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(contains(r.err, missingProfile.toStdString()), r.err.c_str());
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_GUILESS_MAIN(TestCliReportBaseline)
#include "tst_cli_report_baseline.moc"
