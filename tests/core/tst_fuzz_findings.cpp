// Every input the coverage-guided fuzzers found (tests/data/fuzz, FINDINGS.md says what each did), replayed
// through the entry point it broke: each must now end in a precise error or a bounded, sane result. The UB
// cases are checked for real when this suite runs under ASan + UBSan (CI's sanitizer stage); here they must
// also give numbers that make sense. The DMA livelocks are in tst_grm_long_runs.
#include "sim/sim_support.h"

#include "import/import.h"
#include "profile/profile_analysis.h"
#include "profile/profile_report.h"
#include "profile/transfers.h"
#include "session/session.h"
#include "stablehlo/compile.h"
#include "stablehlo/parser.h"
#include "trace/trace_io.h"
#include "trace/trace_json.h"
#include "util/json_text.h"
#include "util/utf8.h"

#include <QTemporaryDir>

#include <chrono>
#include <filesystem>

using namespace xps;

namespace {

std::string finding(const char* name)
{
    return test::sourceDir() + "/tests/data/fuzz/" + name;
}

// What `xpushark-cli analyze FILE --json` does with an imported profile, returning the text it prints.
std::string analyzeJson(const profile::Profile& p)
{
    return text::jsonText(profile::profileAnalysisJson(p, profile::analyzeProfile(p)), 2);
}

bool anyWarningContains(const profile::Profile& p, std::string_view what)
{
    for (const std::string& w : p.warningLines())
        if (w.find(what) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestFuzzFindings : public QObject
{
    Q_OBJECT
private slots:
    void invalidUtf8IsRepairedAtImportAndNeverWritten()
    {
        auto p = importing::importProfile(finding("abort_analyze_json_invalid_utf8.json"));
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QVERIFY2(
            anyWarningContains(*p, "invalid UTF-8 (each invalid sequence replaced by U+FFFD); the first at "),
            p->repairs.empty() ? "no warning" : p->warningLines().back().c_str());
        const std::string json = analyzeJson(*p);
        QVERIFY(text::isValidUtf8(json));
        QVERIFY(json.find("\xef\xbf\xbd") != std::string::npos); // the replaced name is kept, with U+FFFD
    }

    void xspaceWarningWithInvalidUtf8IsWrittenAsValidJson()
    {
        auto p = importing::importProfile(finding("abort_analyze_json_xspace_warning_utf8.xplane.pb"));
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        for (const std::string& w : p->warningLines())
            QVERIFY2(text::isValidUtf8(w), w.c_str());
        QVERIFY(text::isValidUtf8(analyzeJson(*p)));
    }

    void everyJsonWriterReplacesInvalidUtf8()
    {
        const nlohmann::json doc = {{"name", std::string("v\xa4", 2)}, {"ok", "caf\xc3\xa9"}};
        QCOMPARE(text::jsonText(doc), std::string("{\"name\":\"v\xef\xbf\xbd\",\"ok\":\"caf\xc3\xa9\"}"));
        const nlohmann::ordered_json ordered = {{"z", 1}, {"a", std::string("\xff")}};
        QCOMPARE(text::jsonText(ordered), std::string("{\"z\":1,\"a\":\"\xef\xbf\xbd\"}")); // order kept
        std::string out;
        text::appendJsonString(out, std::string("a\xe2\x82", 3) + "\"b");
        QCOMPARE(out, std::string("\"a\xef\xbf\xbd\\\"b\""));
    }

    void utf8RepairReplacesMaximalSubparts_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("expected");
        QTest::addColumn<int>("replaced");
        const QByteArray fffd("\xef\xbf\xbd");
        QTest::newRow("valid") << QByteArray("caf\xc3\xa9 \xf0\x9f\x98\x80")
                               << QByteArray("caf\xc3\xa9 \xf0\x9f\x98\x80") << 0;
        QTest::newRow("stray continuation") << QByteArray("a\x80"
                                                          "b")
                                            << QByteArray("a" + fffd + "b") << 1;
        QTest::newRow("cut-off 3-byte") << QByteArray("\xe2\x82"
                                                      "x")
                                        << QByteArray(fffd + "x") << 1;
        QTest::newRow("overlong") << QByteArray("\xc0\xaf") << QByteArray(fffd + fffd) << 2;
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << QByteArray(fffd + fffd + fffd) << 3;
        QTest::newRow("above U+10FFFF")
            << QByteArray("\xf4\x90\x80\x80") << QByteArray(fffd + fffd + fffd + fffd) << 4;
        QTest::newRow("cut at the end") << QByteArray("ok\xf0\x9f\x98") << QByteArray("ok" + fffd) << 1;
    }
    void utf8RepairReplacesMaximalSubparts()
    {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, expected);
        QFETCH(int, replaced);
        std::string s = input.toStdString();
        QCOMPARE(static_cast<int>(text::repairUtf8(s)), replaced);
        QCOMPARE(QByteArray::fromStdString(s), expected);
        QVERIFY(text::isValidUtf8(s));
    }

    void assemblerRefusesNamesThatAreNotText()
    {
        const std::string path = finding("abort_convert_xasm_name_invalid_utf8.xasm");
        const auto t = assembly::assemble(test::readFile(path), path);
        QVERIFY(!t.ok());
        QVERIFY2(t.error().toString() == path + ":1:7: the string is not valid UTF-8 text",
                 t.error().toString().c_str());
    }

    void containerBlobsLargerThanTheFileAreRefusedBeforeAllocating_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("declared");
        QTest::newRow("2^40") << QStringLiteral("abort_xps_blob_2p40.xps") << QStringLiteral("1099511627776");
        QTest::newRow("3 GiB in 24 KB")
            << QStringLiteral("oom_xps_blob_3gib_24kb.xps") << QStringLiteral("3221225472");
    }
    void containerBlobsLargerThanTheFileAreRefusedBeforeAllocating()
    {
        QFETCH(QString, file);
        QFETCH(QString, declared);
        const auto t = trace::loadTrace(finding(file.toUtf8().constData()));
        QVERIFY(!t.ok());
        const std::string e = t.error().toString();
        QVERIFY2(e.find("$.initial.memory[0].blob: blob 1 declares " + declared.toStdString() +
                        " bytes, more than the whole container") != std::string::npos,
                 e.c_str());
    }

    // Found by fuzz_container in this repo: a blob reference in a container whose blob_chunks table cannot
    // be read crashed in sqlite3_clear_bindings (a statement that never prepared was reset).
    void aContainerWithoutItsBlobTableIsALocatedError()
    {
        const auto t = trace::loadTrace(finding("crash_container_missing_blob_table.xps"));
        QVERIFY(!t.ok());
        QVERIFY2(t.error().toString().ends_with("table chips, row chip=0: $.initial.memory[1].blob: table "
                                                "blob_chunks is missing or unreadable (corrupt container?)"),
                 t.error().toString().c_str());
        (void)session::readSessionTables(finding("crash_container_missing_blob_table.xps")); // must not crash
    }

    void anArrayOfEmptyObjectsIsRefusedInLinearTime()
    {
        const auto start = std::chrono::steady_clock::now();
        const auto t = trace::loadTrace(finding("hang_trace_json_1mb_empty_objects.xtrace.json"));
        QVERIFY(!t.ok());
        QVERIFY2(t.error().toString().ends_with("$: expected a trace object, found an array"),
                 t.error().toString().c_str());
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(5)); // 66 s before
    }

    void chakraNodesRepeatingAnIdAreRefusedAtTheSecond()
    {
        const auto p = importing::importProfile(finding("oom_chakra_json_gz_5m_empty_nodes.json.gz"));
        QVERIFY(!p.ok());
        QVERIFY2(p.error().toString().ends_with(":1:55: node 2 repeats the id 0 of node 1: node ids must be "
                                                "unique within a rank"),
                 p.error().toString().c_str());
    }

    void gzipBombsStopAtTheExpansionLimit_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("20 M events") << QStringLiteral("oom_xspace_gzip_bomb_20m_events.xplane.pb");
        QTest::newRow("100 M events") << QStringLiteral("oom_xspace_gzip_bomb_100m_events.xplane.pb");
    }
    void gzipBombsStopAtTheExpansionLimit()
    {
        QFETCH(QString, file);
        const auto p = importing::importProfile(finding(file.toUtf8().constData()));
        QVERIFY(!p.ok());
        QVERIFY2(p.error().toString().find("the compressed file expands to more than 100x its ") !=
                     std::string::npos,
                 p.error().toString().c_str());
    }

    void eventLimitStopsAnImport()
    {
        importing::ImportOptions options;
        options.limits.maxEvents = 3;
        const auto p = importing::importProfile(test::sourceDir() + "/tests/data/node_trace.json", options);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().toString().find("more than 3 events: larger than this import allows") !=
                     std::string::npos,
                 p.error().toString().c_str());
        options.limits.maxEvents = 0; // no limit
        QVERIFY(importing::importProfile(test::sourceDir() + "/tests/data/node_trace.json", options).ok());
    }

    void aMachineOfManyChipsTimesFlagsIsRefused()
    {
        const std::string path = finding("oom_replay_chips_x_syncflags.xasm");
        const auto t = assembly::assemble(test::readFile(path), path);
        QVERIFY(!t.ok());
        QVERIFY2(t.error().toString().find("chips x sync_flags (4096 x 65536 = 268435456) exceeds 4194304") !=
                     std::string::npos,
                 t.error().toString().c_str());
    }

    void aByteCountOf1e300IsUnknownNotHuge()
    {
        const auto p = importing::importProfile(finding("ub_analyze_transfer_bytes_1e300.json"));
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        for (const profile::Transfer& t : profile::findTransfers(*p))
            QVERIFY(t.bytes < (std::uint64_t{1} << 57));
        QVERIFY(text::isValidUtf8(analyzeJson(*p)));
    }

    // Times at the edges of int64 are saturated or clamped: every slice ends at or after its start.
    void extremeTimesNeverOverflow_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f :
             {"ub_chakra_end_overflow.et", "ub_chakra_end_overflow.json", "ub_chrome_unclosed_B_only.json",
              "ub_chrome_unclosed_async_only.json", "ub_xspace_duration_int64min.xplane.pb",
              "ub_xspace_offset_int64max.xplane.pb", "ub_xspace_timestamp_overflow.xplane.pb",
              "ub_xspace_span_across_int64.xplane.pb"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void extremeTimesNeverOverflow()
    {
        QFETCH(QString, file);
        const auto p = importing::importProfile(finding(file.toUtf8().constData()));
        if (!p.ok()) { // a precise refusal is fine too
            QVERIFY(p.error().toString().starts_with(finding(file.toUtf8().constData())));
            return;
        }
        for (const profile::Slice& s : p->slices) {
            QVERIFY(s.duration >= 0);
            QVERIFY(s.end() >= s.start);
            // Within the profile's time limit, so that analyses may subtract any two times.
            QVERIFY(s.start >= -profile::kTimeLimit && s.end() <= profile::kTimeLimit);
        }
        QVERIFY(p->span() >= 0);
        QVERIFY(text::isValidUtf8(analyzeJson(*p)));
    }

    void unclosedBeginsCloseAtTheLastBegin()
    {
        const auto p = importing::importProfile(finding("ub_chrome_unclosed_B_only.json"));
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QVERIFY(!p->slices.empty());
        QVERIFY(anyWarningContains(*p, "had a begin but no end; each was closed at the end of the trace"));
    }

    void aBookmarkPcOf1e300IsALocatedError()
    {
        const auto s = session::readSession(finding("ub_session_bookmark_pc_1e300.xps"));
        QVERIFY(!s.ok());
        QVERIFY2(s.error().toString().find("table bookmarks, row position=") != std::string::npos &&
                     s.error().toString().find("expected [chip, pc] with a chip of the trace") !=
                         std::string::npos,
                 s.error().toString().c_str());
    }

    // A directory named like a trace was read as a file ("the file is empty", "does not start with the
    // SQLite header"); a directory of Chakra ranks was "unknown trace file type".
    void directoriesAreSaidToBeDirectories()
    {
        QTemporaryDir dir;
        for (const char* name : {"run.et", "run.xps", "run.xtrace.json", "run.json", "run.xplane.pb"}) {
            const std::string path = dir.filePath(QString::fromLatin1(name)).toStdString();
            QVERIFY(std::filesystem::create_directory(path));
            const auto imported = importing::importProfile(path);
            QVERIFY(!imported.ok());
            QVERIFY2(imported.error().toString().starts_with(path + ": is a directory"),
                     imported.error().toString().c_str());
            if (std::string_view(name).ends_with(".et") || std::string_view(name).ends_with(".pb"))
                continue; // not a kind loadTrace reads: it says so by name, before looking at the disk
            const auto loaded = trace::loadTrace(path);
            QVERIFY(!loaded.ok());
            QVERIFY2(loaded.error().toString() == path + ": is a directory, not a trace file",
                     loaded.error().toString().c_str());
        }
    }

    void aDirectoryOfChakraRanksOpensAsOneProfile()
    {
        const std::string directory = test::sourceDir() + "/resources/samples/ddp_step";
        QCOMPARE(importing::detectInput(directory).value(), importing::InputKind::Chakra);
        const auto p = importing::importProfile(directory);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const auto first = importing::importProfile(directory + "/step.2.et"); // any rank names them all
        QVERIFY(first.ok());
        QCOMPARE(p->format, first->format);
        QCOMPARE(p->slices.size(), first->slices.size());
        QVERIFY2(p->format.find("4 ranks") != std::string::npos, p->format.c_str());
        // And the ranks' common prefix (no file by that name) names the same profile.
        const std::string prefix = directory + "/step";
        QCOMPARE(importing::detectInput(prefix).value(), importing::InputKind::Chakra);
        const auto byPrefix = importing::importProfile(prefix);
        QVERIFY2(byPrefix.ok(), byPrefix.ok() ? "" : byPrefix.error().toString().c_str());
        QCOMPARE(byPrefix->format, p->format);
        QCOMPARE(byPrefix->slices.size(), p->slices.size());
        // A prefix with no ranks behind it is still "no such file".
        QVERIFY(!importing::detectInput(directory + "/nope").ok());
    }

    // Found by fuzz_replay in CI: a 2,046-chip machine that only halts took 3.4 GB under ASan, a 1 MiB VMEM
    // heatmap per chip allocated up front (and copied again on every publish). Grids are now made at a
    // chip's first VMEM access.
    void chipsThatNeverTouchVmemHoldNoHeatmap()
    {
        const std::string path = finding("oom_replay_chips_2046_heatmaps.xasm");
        auto t = assembly::assemble(test::readFile(path), path);
        QVERIFY(t.ok());
        QCOMPARE(t->chips.size(), std::size_t(2046));
        auto r = test::replayTrace(std::move(t).value());
        QCOMPARE(r->result.status, sim::ReplayResult::Status::Completed);
        for (ChipId chip : idsBelow<ChipId>(2046))
            QCOMPARE(r->store.vmemHeatmap(chip).heldBytes(), std::size_t(0));
        // One that does touch VMEM gets its grid and its bytes.
        auto touched =
            test::replaySource(".hbm src, 0, 4096\n.vmem dst, 0, 4096\n"
                               "    dma.start vmem[0], hbm[0], 4096, 0\n    sync.wait 0, 1\n    halt\n");
        QCOMPARE(touched->result.status, sim::ReplayResult::Status::Completed);
        const events::VmemHeatmap h = touched->store.vmemHeatmap(ChipId(0));
        QVERIFY(h.heldBytes() > 0);
        QVERIFY(h.totalWritten() > 0);
    }

    // Found by fuzz_replay (25 minutes into an hour's run): 1.5 KB of .xasm on 4,096 chips that all
    // touch VMEM took 10 GB and 25 s to replay: a 1 MiB heatmap grid per chip, copied on every publish. The
    // chips now share a fixed budget of grids (fewer time bins each); that input takes 1.9 GB and 2.7 s, its
    // own buffers (4,096 x 64 KiB in HBM and in VMEM). Minimised by hand to what the grids cost.
    void manyChipsTouchingVmemShareTheHeatmapBudget()
    {
        const std::string path = finding("oom_replay_2048_chips_touching_vmem.xasm");
        auto t = assembly::assemble(test::readFile(path), path);
        QVERIFY(t.ok());
        QCOMPARE(t->chips.size(), std::size_t(2048));
        auto r = test::replayTrace(std::move(t).value());
        QCOMPARE(r->result.status, sim::ReplayResult::Status::Completed);
        std::size_t held = 0;
        for (ChipId chip : idsBelow<ChipId>(2048)) {
            const events::VmemHeatmap h = r->store.vmemHeatmap(chip);
            QCOMPARE(h.timeBins(), 16);
            QCOMPARE(h.totalWritten(), std::uint64_t(4096)); // one vector row
            held += h.heldBytes();
        }
        QVERIFY(held <= events::VmemHeatmap::kBudgetBytes);
    }

    void aProgramThatNeverHaltsStopsAtTheBundleLimit()
    {
        const std::string path = finding("unbounded_replay_spin.xasm");
        auto t = assembly::assemble(test::readFile(path), path);
        QVERIFY(t.ok());
        events::EventStore store;
        sim::ReplayOptions options{sim::ReplayMode::Full};
        options.maxBundles =
            200'000; // the default (2^27) works the same, in seconds rather than milliseconds
        const sim::ReplayResult r = sim::replay(t.value(), options, store);
        QCOMPARE(r.status, sim::ReplayResult::Status::LimitReached);
        QCOMPARE(r.limitMessage,
                 std::string("the bundle limit (200,000 bundles); chip 0 still running at pc 0x0, "
                             "its most executed bundle pc 0x0 (`br loop`, 200,000 times)"));
    }

    // fuzz_stablehlo: a reduce_window in the generic form without its reducer region was
    // lowered reading the region that was not there (UB); a reverse whose operand was written `@0` had no
    // operand, and the validation's in.at(0) threw out of compileModule (abort); the same without an operand
    // for the ops that cost no code (reshape, convert, broadcast_in_dim) read in[0] (UB).
    void malformedOpsAreLocatedErrors_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::newRow("reduce_window without its reducer")
            << QStringLiteral("ub_stablehlo_reduce_window_without_region.mlir")
            << QStringLiteral("reduce_window needs a reducer region");
        QTest::newRow("reverse without an operand")
            << QStringLiteral("abort_stablehlo_reverse_without_operand.mlir")
            << QStringLiteral("stablehlo.reverse: expected 1 operand, has 0");
        QTest::newRow("a reshape, convert or broadcast without an operand")
            << QStringLiteral("ub_stablehlo_unary_without_operand.mlir")
            << QStringLiteral("expected 1 operand and 1 result, has 0 and 1");
        // CI's fuzz stage: a reduce whose reducer returned nothing was lowered taking the
        // result registers from an empty list (UB in combineBlocks).
        QTest::newRow("a reducer that returns nothing")
            << QStringLiteral("ub_stablehlo_reducer_returns_nothing.mlir")
            << QStringLiteral("stablehlo.reduce: the reducer returns 0 values; 1 expected");
        // fuzz_stablehlo (an hour's run, minimised by libFuzzer): a select without operands in a reducer
        // region; its lowering's operands.at(0) threw out of compileModule (abort).
        QTest::newRow("a reducer op without operands")
            << QStringLiteral("abort_stablehlo_reducer_op_without_operands.mlir")
            << QStringLiteral("stablehlo.select in a reducer: expected 3 operands, has 0");
    }

    void malformedOpsAreLocatedErrors()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const std::string path = finding(file.toStdString().c_str());
        bool refused = false;
        for (auto& part : shlo::splitInputFile(test::readFile(path))) { // as the fuzz target reads it
            auto module = shlo::parseModule(std::move(part.text), path);
            if (!module)
                continue; // parts the fuzzer made into something else
            auto compiled = shlo::compileModule(*module);
            if (!compiled && compiled.error().toString().find(message.toStdString()) != std::string::npos) {
                refused = true;
                QVERIFY2(compiled.error().location().starts_with(path + ":"),
                         compiled.error().toString().c_str());
            }
        }
        QVERIFY(refused);
    }
};

QTEST_GUILESS_MAIN(TestFuzzFindings)
#include "tst_fuzz_findings.moc"
