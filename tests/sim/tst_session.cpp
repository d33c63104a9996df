// Sessions: everything saved comes back, a bare trace reads as an empty session, a newer file is refused
// with a clear message, an interrupted save keeps the previous file, and a note pinned to an event follows
// the event when a re-replay moves it.
#include "sim/sim_support.h"

#include "session/session.h"
#include "trace/trace_container.h"
#include "trace/trace_io.h"
#include "util/sqlite.h"

#include <QDir>
#include <QTemporaryDir>

#include <csignal>
#include <filesystem>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace xps;

namespace {

// A loop whose DMA time depends on the HBM bandwidth: a slower machine moves every later bundle.
std::string dmaWaitLoop()
{
    return test::readFile(test::sourceDir() + "/tests/data/dma_wait_loop.xasm");
}

session::Session sampleSession(const trace::Trace& trace, int notes)
{
    session::Session s;
    s.trace = trace;
    s.source = "/traces/loop.xasm";
    s.replaySummary = {{"total_cycles", 1234}, {"mxu_utilization", 0.25}};
    s.suggestions = {{"S1",
                      "late-dma",
                      "Issue the DMA at pc 2 earlier",
                      session::SuggestionState::Applied,
                      {{"verdict", "improves"}, {"gain_percent", 12.5}}},
                     {"S2", "hbm-bandwidth", "What if HBM bandwidth doubled?",
                      session::SuggestionState::Dismissed, nullptr},
                     {"S3", "single-engine", "Split the DMA", session::SuggestionState::Open, nullptr}};
    for (int i = 0; i < notes; ++i) {
        session::Annotation a;
        a.id = i + 1;
        a.text = "note " + std::to_string(i) + ": the wait at pc 4 is exposed; 'quotes' and \"more\"";
        a.fromCycle = 100u * static_cast<unsigned>(i);
        a.toCycle = a.fromCycle + 50;
        if (i % 2 == 0)
            a.anchor = session::EventAnchor{ChipId(0), 4, static_cast<std::uint64_t>(i)};
        s.annotations.push_back(a);
    }
    s.bookmarks = {{"first DMA", 0, 300, {"chip 0 / MXU"}, {{ChipId(0), 2}, {ChipId(0), 4}}, std::nullopt},
                   {"steady state", 2000, 9000, {}, {}, std::nullopt}};
    s.windowLayout = "AAAA/w==";
    return s;
}

void compareSessions(const session::Session& a, const session::Session& b)
{
    QVERIFY(a.trace == b.trace);
    QCOMPARE(a.source, b.source);
    QCOMPARE(a.replaySummary, b.replaySummary);
    QCOMPARE(a.windowLayout, b.windowLayout);
    QCOMPARE(a.suggestions.size(), b.suggestions.size());
    for (std::size_t i = 0; i < a.suggestions.size(); ++i) {
        QCOMPARE(a.suggestions[i].id, b.suggestions[i].id);
        QCOMPARE(a.suggestions[i].kind, b.suggestions[i].kind);
        QCOMPARE(a.suggestions[i].title, b.suggestions[i].title);
        QVERIFY(a.suggestions[i].state == b.suggestions[i].state);
        QCOMPARE(a.suggestions[i].measurement, b.suggestions[i].measurement);
    }
    QCOMPARE(a.annotations.size(), b.annotations.size());
    for (std::size_t i = 0; i < a.annotations.size(); ++i) {
        QCOMPARE(a.annotations[i].id, b.annotations[i].id);
        QCOMPARE(a.annotations[i].text, b.annotations[i].text);
        QCOMPARE(a.annotations[i].fromCycle, b.annotations[i].fromCycle);
        QCOMPARE(a.annotations[i].toCycle, b.annotations[i].toCycle);
        QVERIFY(a.annotations[i].anchor == b.annotations[i].anchor);
    }
    QCOMPARE(a.bookmarks.size(), b.bookmarks.size());
    for (std::size_t i = 0; i < a.bookmarks.size(); ++i) {
        QCOMPARE(a.bookmarks[i].name, b.bookmarks[i].name);
        QCOMPARE(a.bookmarks[i].fromCycle, b.bookmarks[i].fromCycle);
        QCOMPARE(a.bookmarks[i].toCycle, b.bookmarks[i].toCycle);
        QVERIFY(a.bookmarks[i].hiddenLanes == b.bookmarks[i].hiddenLanes);
        QVERIFY(a.bookmarks[i].selectedPcs == b.bookmarks[i].selectedPcs);
    }
}

void setPragma(const std::string& path, const char* sql)
{
    sql::Database db;
    QVERIFY(db.open(path, false).empty());
    QVERIFY(db.exec(sql).empty());
}

} // namespace

class TestSession : public QObject
{
    Q_OBJECT

private slots:
    void everythingSavedComesBack()
    {
        const auto replayed = test::replaySource(dmaWaitLoop());
        const session::Session s = sampleSession(replayed->trace, 5);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("review.xps")).toStdString();
        const Status saved = session::writeSession(s, path);
        QVERIFY2(saved.ok(), saved.ok() ? "" : saved.error().toString().c_str());
        const auto loaded = session::readSession(path);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        compareSessions(s, *loaded);
        // A session file is still a trace to everything that reads traces.
        const auto asTrace = trace::loadTrace(path);
        QVERIFY(asTrace.ok() && *asTrace == s.trace);
    }

    void aBareTraceIsAnEmptySession()
    {
        const auto replayed = test::replaySource(dmaWaitLoop());
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("bare.xps")).toStdString();
        QVERIFY(trace::saveTrace(replayed->trace, path).ok());
        // A version 1 file (written before sessions existed) migrates the same way.
        setPragma(path, "PRAGMA user_version = 1");
        const auto loaded = session::readSession(path);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        QVERIFY(loaded->trace == replayed->trace);
        QVERIFY(loaded->annotations.empty() && loaded->bookmarks.empty() && loaded->suggestions.empty());
    }

    void aNewerFileGetsAClearMessage()
    {
        const auto replayed = test::replaySource(dmaWaitLoop());
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("newer.xps")).toStdString();
        QVERIFY(session::writeSession(sampleSession(replayed->trace, 1), path).ok());
        setPragma(path, "PRAGMA user_version = 3");
        auto loaded = session::readSession(path);
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error().toString().find("written by a newer xpushark (container schema version 3") !=
                     std::string::npos,
                 loaded.error().toString().c_str());

        QVERIFY(session::writeSession(sampleSession(replayed->trace, 1), path).ok());
        setPragma(path, "UPDATE session_meta SET value = '7' WHERE key = 'format_version'");
        loaded = session::readSession(path);
        QVERIFY(!loaded.ok());
        QCOMPARE(loaded.error().toString(),
                 path + ": table session_meta: session format version 7 is not one this build reads (1): "
                        "please update xpushark");

        QVERIFY(session::writeSession(sampleSession(replayed->trace, 1), path).ok());
        setPragma(path, "UPDATE suggestion_states SET measurement = '{broken' WHERE id = 'S1'");
        loaded = session::readSession(path);
        QVERIFY(!loaded.ok());
        QCOMPARE(loaded.error().toString(),
                 path + ": table suggestion_states, row id=S1, column measurement: is not valid JSON");
    }

    void anInterruptedSaveKeepsThePreviousFile()
    {
        const auto replayed = test::replaySource(dmaWaitLoop());
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("keep.xps")).toStdString();
        const session::Session before = sampleSession(replayed->trace, 2);
        QVERIFY(session::writeSession(before, path).ok());
        const session::Session after = sampleSession(replayed->trace, 20000);
        for (int delayMs : {0, 2, 10, 40}) {
            const pid_t child = fork();
            if (child == 0) {
                (void)session::writeSession(after, path);
                _exit(0);
            }
            usleep(static_cast<useconds_t>(delayMs * 1000));
            kill(child, SIGKILL);
            waitpid(child, nullptr, 0);
            // Whatever the moment of the kill, the file is one complete session.
            const auto loaded = session::readSession(path);
            QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
            QVERIFY(loaded->annotations.size() == 2 || loaded->annotations.size() == 20000);
        }
    }

    // A save that the disk cuts short (here RLIMIT_FSIZE, which stops writes past a size even for root, as a
    // full disk does) fails with a message naming the file, and the previous session is intact.
    void aSaveThatRunsOutOfDiskKeepsThePreviousFileAndSaysWhy()
    {
        const auto replayed = test::replaySource(dmaWaitLoop());
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("full.xps")).toStdString();
        QVERIFY(session::writeSession(sampleSession(replayed->trace, 2), path).ok());
        const auto previousSize = std::filesystem::file_size(path);
        int pipeFds[2];
        QCOMPARE(pipe(pipeFds), 0);
        const pid_t child = fork();
        if (child == 0) {
            ::close(pipeFds[0]);
            std::signal(SIGXFSZ, SIG_IGN); // a write past the limit then fails with EFBIG instead of killing
            const rlimit limit{previousSize / 2, previousSize / 2};
            setrlimit(RLIMIT_FSIZE, &limit);
            const Status saved = session::writeSession(sampleSession(replayed->trace, 20000), path);
            const std::string message = saved.ok() ? std::string("saved") : saved.error().toString();
            (void)!::write(pipeFds[1], message.data(), message.size());
            _exit(0);
        }
        ::close(pipeFds[1]);
        std::string message;
        char buffer[512];
        for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0;)
            message.append(buffer, static_cast<std::size_t>(n));
        ::close(pipeFds[0]);
        int status = 0;
        waitpid(child, &status, 0);
        QVERIFY(WIFEXITED(status));
        QVERIFY2(message.starts_with(path + ": "), message.c_str());
        const auto loaded = session::readSession(path);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        QCOMPARE(loaded->annotations.size(), std::size_t(2));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files),
                 QStringList{QStringLiteral("full.xps")}); // no temporary left behind
    }

    // A directory that cannot be written: the save fails with a message naming the file and changes nothing.
    // Root writes into a 0555 directory regardless, so the case that holds for everyone is a parent that is a
    // file; the permission case is added when not running as root.
    void aSaveWhereNothingCanBeWrittenSaysWhy()
    {
        const auto replayed = test::replaySource(dmaWaitLoop());
        QTemporaryDir dir;
        const std::string notADirectory = dir.filePath(QStringLiteral("file")).toStdString();
        test::writeFile(notADirectory, "x");
        const Status intoAFile =
            session::writeSession(sampleSession(replayed->trace, 2), notADirectory + "/s.xps");
        QVERIFY(!intoAFile.ok());
        QVERIFY2(intoAFile.error().toString().starts_with(notADirectory + "/s.xps: "),
                 intoAFile.error().toString().c_str());
        QCOMPARE(test::readFile(notADirectory), std::string("x"));
        if (geteuid() != 0) {
            const std::string path = dir.filePath(QStringLiteral("ro/s.xps")).toStdString();
            QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("ro")));
            QVERIFY(session::writeSession(sampleSession(replayed->trace, 2), path).ok());
            std::filesystem::permissions(dir.filePath(QStringLiteral("ro")).toStdString(),
                                         std::filesystem::perms::owner_read |
                                             std::filesystem::perms::owner_exec);
            const Status denied = session::writeSession(sampleSession(replayed->trace, 3), path);
            std::filesystem::permissions(dir.filePath(QStringLiteral("ro")).toStdString(),
                                         std::filesystem::perms::owner_all);
            QVERIFY(!denied.ok());
            QVERIFY2(denied.error().toString().starts_with(path + ": "), denied.error().toString().c_str());
            QCOMPARE(session::readSession(path)->annotations.size(), std::size_t(2));
        }
    }

    void aNoteOnAnEventFollowsItAcrossAReReplay()
    {
        const auto fast = test::replaySource(dmaWaitLoop());
        // The 7th execution of the sync.wait (pc 4), where the first replay put it.
        std::size_t index = 0;
        std::uint64_t seen = 0;
        const events::BundleSnapshot bundles = fast->store.bundles();
        for (std::size_t i = 0; i < bundles.size(); ++i)
            if (bundles[i].pc == 4 && seen++ == 6) {
                index = i;
                break;
            }
        const auto anchor = session::anchorOf(index, fast->store);
        QVERIFY(anchor);
        QCOMPARE(*anchor, (session::EventAnchor{ChipId(0), 4, 6}));
        session::Annotation note{1,      "this wait", bundles[index].cycle, bundles[index].cycle + 10,
                                 anchor, std::nullopt};

        // The same program on a machine with a quarter of the HBM bandwidth: the wait moves later.
        trace::Trace slower = fast->trace;
        slower.machine.hbmBandwidthGBs /= 4;
        slower.machine.dmaEnginePeakGBs /= 4;
        events::EventStore store;
        const sim::ReplayResult r = sim::replay(slower, {sim::ReplayMode::Full}, store);
        QVERIFY(!r.fault);
        std::vector<session::Annotation> notes{note};
        QCOMPARE(session::relocate(notes, store), std::size_t{0});
        std::uint64_t expected = 0;
        seen = 0;
        const events::BundleSnapshot moved = store.bundles();
        for (std::size_t i = 0; i < moved.size(); ++i)
            if (moved[i].pc == 4 && seen++ == 6) {
                expected = moved[i].cycle;
                break;
            }
        QVERIFY(expected > note.fromCycle);
        QCOMPARE(notes[0].fromCycle, expected);
        QCOMPARE(notes[0].toCycle, expected + 10);

        // Many notes at once (one pass over the replay): each finds its own execution.
        std::vector<session::Annotation> many;
        std::vector<std::uint64_t> cycles;
        for (std::size_t i = 0; i < moved.size(); ++i)
            if (moved[i].pc == 4 && moved[i].chip == ChipId(0))
                cycles.push_back(moved[i].cycle);
        for (std::uint64_t k = 0; k < 6; ++k)
            many.push_back({static_cast<std::int64_t>(k + 1), "wait", 0, 0,
                            session::EventAnchor{ChipId(0), 4, 5 - k}, std::nullopt});
        many.push_back({7, "range", 5, 9, std::nullopt, std::nullopt});
        QCOMPARE(session::relocate(many, store), std::size_t{0});
        for (std::uint64_t k = 0; k < 6; ++k)
            QCOMPARE(many[k].fromCycle, cycles[5 - k]);
        QCOMPARE(many[6].fromCycle, std::uint64_t{5});

        // A replay that stops before the event leaves the note where it was and says so.
        events::EventStore cut;
        (void)sim::replay(slower, {sim::ReplayMode::Full, expected / 2}, cut);
        std::vector<session::Annotation> unchanged{note};
        QCOMPARE(session::relocate(unchanged, cut), std::size_t{1});
        QCOMPARE(unchanged[0].fromCycle, note.fromCycle);
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
