// `xpushark-cli report` on an imported profile and on a session on one: the report carries the
// same analysis `analyze --json` prints, its estimated findings instead of measured suggestions, and the
// session's notes found again on their slices, in time order, with times from the profile's start.
#include "cli_test_support.h"

#include "session/session.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace xps;
using test::cli;
using test::Run;

namespace {

QString kinetoStep()
{
    return QString::fromStdString(test::sourceDir() + "/tests/data/kineto_step.json");
}

std::size_t count(const std::string& text, const std::string& what)
{
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

class TestCliProfileReport : public QObject
{
    Q_OBJECT
private slots:
    void aProfileReportCarriesItsAnalysisAndFindings()
    {
        QTemporaryDir dir;
        const auto report = [&](const char* ext) {
            const QString out = dir.filePath(QStringLiteral("step.") + QString::fromLatin1(ext));
            const Run r = cli({QStringLiteral("report"), kinetoStep(), QStringLiteral("-o"), out});
            if (r.exitCode != 0)
                qFatal("report %s failed: %s", ext, r.err.c_str());
            if (r.out.find("3 finding(s), estimated from the profile") == std::string::npos)
                qFatal("report %s said: %s", ext, r.out.c_str());
            return test::readFile(out.toStdString());
        };
        const nlohmann::json j = nlohmann::json::parse(report("json"));
        QCOMPARE(j["kind"].get<std::string>(), std::string("imported-profile"));
        QVERIFY(j["ranking"].empty()); // nothing was measured
        // The analysis is analyze --json's, to the number.
        const Run analyze = cli({QStringLiteral("analyze"), QStringLiteral("--json"), kinetoStep()});
        QCOMPARE(analyze.exitCode, 0);
        QCOMPARE(j["analysis"], nlohmann::json::parse(analyze.out));
        std::map<std::string, std::string> headline;
        for (const auto& row : j["headline"])
            headline[row["name"].get<std::string>()] = row["value"].get<std::string>();
        QCOMPARE(headline["Critical path"], std::string("0.495 ms")); // 495,000 ns, as analyze says
        QCOMPARE(headline["Span"], std::string("1.000 ms"));
        QCOMPARE(headline["Findings"], std::string("3"));

        const std::string md = report("md");
        for (const char* section :
             {"## Summary", "## Where each device's time went", "## Devices",
              "## Top operations by total time", "## Findings", "## Annotations", "## Bookmarks"})
            QVERIFY2(md.find(section) != std::string::npos, section);
        QVERIFY(md.find("## Suggestions") == std::string::npos);
        QVERIFY(md.find("| 1 | Memory copies on GPU 0 are exposed | 0.200 ms | 0.250 ms-0.450 ms |") !=
                std::string::npos);
        QVERIFY(md.find("Estimated from the profile, not measured") != std::string::npos);

        const std::string html = report("html");
        QVERIFY(html.find("<section id=\"findings\">") != std::string::npos);
        QVERIFY(html.find("id=\"suggestions\"") == std::string::npos);
        QCOMPARE(count(html, "<section"), count(html, "</section>"));
        QVERIFY(html.find("<svg") != std::string::npos); // the device figure

        const std::string pdf = report("pdf");
        QVERIFY(pdf.rfind("%PDF", 0) == 0);
    }

    void aSessionOnAProfileBringsItsNotes()
    {
        QTemporaryDir dir;
        const QString step = dir.filePath(QStringLiteral("step.json"));
        QVERIFY(QFile::copy(kinetoStep(), step));
        // Saved before the times were known (0): the pinned note is found on its kernel, 700-880 us.
        session::Session s;
        s.profileSource = step.toStdString();
        session::Annotation pinned;
        pinned.id = 1;
        pinned.text = "second gemm waits for its launch";
        pinned.slice = session::SliceAnchor{1, 0, 7, "stream 7", "sgemm_128x64", 700000};
        session::Annotation range;
        range.id = 2;
        range.text = "the copy";
        range.fromCycle = 250000;
        range.toCycle = 450000;
        s.annotations = {pinned, range};
        s.bookmarks.push_back({"whole step", 0, 1000000, {}, {}, std::nullopt});
        const QString sessionPath = dir.filePath(QStringLiteral("review.xps"));
        QVERIFY(session::writeProfileSession(s, sessionPath.toStdString()));

        const QString md = dir.filePath(QStringLiteral("review.md"));
        const Run r = cli({QStringLiteral("report"), sessionPath, QStringLiteral("-o"), md});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const std::string text = test::readFile(md.toStdString());
        const std::size_t copy = text.find("- 0.250 ms-0.450 ms: the copy");
        const std::size_t gemm =
            text.find("- 0.700 ms-0.880 ms: sgemm_128x64 on stream 7: second gemm waits for its launch");
        QVERIFY2(copy != std::string::npos && gemm != std::string::npos && copy < gemm, text.c_str());
        QVERIFY(text.find("- whole step: 0.000 ms-1.000 ms") != std::string::npos);
        QVERIFY(text.find("session on " + step.toStdString()) != std::string::npos);

        const QString json = dir.filePath(QStringLiteral("review.json"));
        QCOMPARE(cli({QStringLiteral("report"), sessionPath, QStringLiteral("-o"), json}).exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(test::readFile(json.toStdString()));
        QCOMPARE(j["annotations"][1]["fromNs"].get<std::int64_t>(), std::int64_t(700000));
        QCOMPARE(j["annotations"][1]["toNs"].get<std::int64_t>(), std::int64_t(880000));
        QVERIFY(!j["annotations"][1].contains("fromCycle"));

        // info and analyze take the session for its profile, as report does.
        const Run analyzed = cli({QStringLiteral("analyze"), QStringLiteral("--json"), sessionPath});
        QVERIFY2(analyzed.exitCode == 0, analyzed.err.c_str());
        QCOMPARE(nlohmann::json::parse(analyzed.out), j["analysis"]);
        const Run info = cli({QStringLiteral("info"), sessionPath});
        QVERIFY2(info.exitCode == 0 && info.out.find("PyTorch profiler (Kineto) JSON") != std::string::npos,
                 info.out.c_str());

        // Without its profile, the report says which file it could not read.
        QVERIFY(QFile::remove(step));
        const Run missing = cli({QStringLiteral("report"), sessionPath, QStringLiteral("-o"), md});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.find(step.toStdString()) != std::string::npos, missing.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliProfileReport)
#include "tst_cli_profile_report.moc"
