// xpushark-cli analyze, apply and report as a user runs them: each sample's analyses and measured
// suggestions (the gain `apply` reproduces), the all-gather ring's link pattern and its split, the replay as
// a profile, and the report in every format (sections, a session's notes, grouped suggestions). The whole
// analyze --json output of every sample is pinned by tst_golden_analysis.
#include "cli_test_support.h"

#include "session/session.h"
#include "trace/trace_io.h"

#include <QProcess>
#include <QTemporaryDir>
#include <map>
#include <nlohmann/json.hpp>

using namespace xps;

namespace {

using test::cli;
using test::Run;

QString sample(const char* name)
{
    return QString::fromStdString(test::sourceDir() + "/resources/samples/") + QString::fromLatin1(name);
}

} // namespace

class TestCliAnalyze : public QObject
{
    Q_OBJECT

private slots:
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
        s.annotations.push_back(
            {1, "the first load waits here", 10, 20, session::EventAnchor{ChipId(0), 16, 0}, std::nullopt});
        s.annotations.push_back({2, "steady state starts", 300, 900, std::nullopt, std::nullopt});
        s.bookmarks.push_back({"prologue", 0, 120, {}, {}, std::nullopt});
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

    // A trace that carries recorded hardware timing gets a "Replay vs recorded timing" section: the
    // headline's error measures, a figure and a table worst first (the report shows replay vs measured
    // per region).
    void reportComparesTheReplayWithRecordedTiming()
    {
        QTemporaryDir dir;
        const std::string xasm = dir.filePath(QStringLiteral("r.xasm")).toStdString();
        test::writeFile(
            xasm, ".region body, level=op\n.sreg s1, 2\nregion.begin body\nsmul s1, s1, 3 ; smov s2, 1\n"
                  "sadd s3, s1, 1\nregion.end\nhalt\n");
        Result<trace::Trace> t = trace::loadTrace(xasm);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().toString().c_str());
        // The replay takes 5 cycles for body's one instance (tst_grm_timing's residual case): 4 recorded is
        // +25%; a second instance was recorded but never runs.
        t->recorded = trace::RecordedTiming{{{ChipId(0), "body", 0, 4}, {ChipId(0), "body", 1, 9}}, {}};
        const std::string path = dir.filePath(QStringLiteral("r.xtrace.json")).toStdString();
        QVERIFY(trace::saveTrace(*t, path).ok());

        const QString json = dir.filePath(QStringLiteral("r.json"));
        QCOMPARE(cli({QStringLiteral("report"), QString::fromStdString(path), QStringLiteral("-o"), json})
                     .exitCode,
                 0);
        const nlohmann::json j = nlohmann::json::parse(test::readFile(json.toStdString()));
        const nlohmann::json& rt = j.at("recorded_timing");
        QCOMPARE(rt.at("recorded").get<int>(), 2);
        QCOMPARE(rt.at("replayed").get<int>(), 1);
        QCOMPARE(rt.at("mean_abs_error_percent").get<double>(), 25.0);
        QCOMPARE(rt.at("worst_error_percent").get<double>(), 25.0);
        QCOMPARE(rt.at("instances").size(), std::size_t(2));
        QVERIFY(rt["instances"][0].at("replayed_cycles").is_null()); // not reached leads
        QCOMPARE(rt["instances"][1].at("replayed_cycles").get<int>(), 5);
        QCOMPARE(rt["instances"][1].at("error_percent").get<double>(), 25.0);
        bool headline = false;
        for (const nlohmann::json& h : j.at("headline"))
            headline |= h.at("name") == "Replay vs recorded timing" &&
                        h.at("value") ==
                            "1 of 2 recorded region instances replayed; mean |error| 25.0%, median "
                            "25.0%, worst +25.0% (body #0)";
        QVERIFY2(headline, j.at("headline").dump().c_str());

        const QString md = dir.filePath(QStringLiteral("r.md"));
        QCOMPARE(
            cli({QStringLiteral("report"), QString::fromStdString(path), QStringLiteral("-o"), md}).exitCode,
            0);
        const std::string text = test::readFile(md.toStdString());
        QVERIFY2(text.find("| 0 | body | 0 | 4 | 5 | +25.0% |") != std::string::npos, text.c_str());
        QVERIFY(text.find("| 0 | body | 1 | 9 | not reached | — |") != std::string::npos);
        QVERIFY(text.find("Replay vs recorded timing") < text.find("## Suggestions"));

        // A trace without recorded timing has no such section.
        const QString plain = dir.filePath(QStringLiteral("plain.json"));
        QCOMPARE(
            cli({QStringLiteral("report"), sample("matmul_naive.xtrace.json"), QStringLiteral("-o"), plain})
                .exitCode,
            0);
        QVERIFY(!nlohmann::json::parse(test::readFile(plain.toStdString())).contains("recorded_timing"));
    }
};

QTEST_GUILESS_MAIN(TestCliAnalyze)
#include "tst_cli_analyze.moc"
