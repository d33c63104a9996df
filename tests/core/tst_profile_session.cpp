// Sessions on imported profiles: notes pinned to a slice and bookmarks with a selected slice come back from
// the file; the pinned slice is found again in a re-import of the real profile (Node.js's trace events and
// the Kineto step); a profile session is told apart from a trace, and its profile is found when the two were
// moved together. Hostile session tables get an error naming the table and row.
#include "test_support.h"

#include "import/import.h"
#include "profile/profile.h"
#include "session/session.h"
#include "trace/trace_container.h"
#include "util/sqlite.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace xps;

namespace {

profile::Profile imported(const std::string& path)
{
    auto p = importing::importProfile(path);
    if (!p)
        qFatal("import of %s failed: %s", path.c_str(), p.error().toString().c_str());
    return std::move(p).value();
}

std::string nodeTrace()
{
    return test::sourceDir() + "/tests/data/node_trace.json";
}

std::string kinetoStep()
{
    return test::sourceDir() + "/tests/data/kineto_step.json";
}

// Slices of `profile` spread over it: the first, some in the middle, the last; each with a name.
std::vector<std::uint32_t> spreadSlices(const profile::Profile& profile)
{
    std::vector<std::uint32_t> picked;
    const std::size_t n = profile.slices.size();
    for (std::size_t i : {std::size_t{0}, n / 3, n / 2, (2 * n) / 3, n - 1})
        if (i < n && (picked.empty() || picked.back() != i))
            picked.push_back(static_cast<std::uint32_t>(i));
    return picked;
}

session::Session profileSession(const profile::Profile& profile, const std::string& source)
{
    session::Session s;
    s.profileSource = source;
    s.windowLayout = "AAAA";
    std::int64_t id = 1;
    for (std::uint32_t slice : spreadSlices(profile)) {
        session::Annotation a;
        a.id = id++;
        a.text = "note on " + profile.nameOf(profile.slices[slice]);
        a.fromCycle = static_cast<std::uint64_t>(profile.slices[slice].start);
        a.toCycle = static_cast<std::uint64_t>(profile.slices[slice].end());
        a.slice = session::sliceAnchorOf(profile, profile::SliceRow(slice));
        s.annotations.push_back(std::move(a));
    }
    session::Annotation range; // a plain time range, negative-free but not on any slice
    range.id = id++;
    range.text = "the slow part";
    range.fromCycle = static_cast<std::uint64_t>(profile.startTime());
    range.toCycle = static_cast<std::uint64_t>(profile.startTime() + profile.span() / 2);
    s.annotations.push_back(range);
    session::Bookmark b;
    b.name = "first half";
    b.fromCycle = range.fromCycle;
    b.toCycle = range.toCycle;
    b.selectedSlice = session::sliceAnchorOf(
        profile, profile::SliceRow(static_cast<std::uint32_t>(profile.slices.size() / 2)));
    s.bookmarks.push_back(b);
    return s;
}

} // namespace

class TestProfileSession : public QObject
{
    Q_OBJECT
private slots:
    void notesAndBookmarksComeBack()
    {
        const profile::Profile profile = imported(nodeTrace());
        QVERIFY(profile.slices.size() > 10);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("node.xps")).toStdString();
        const session::Session saved = profileSession(profile, nodeTrace());
        QVERIFY(session::writeProfileSession(saved, path));

        QVERIFY(session::isProfileSession(path));
        Result<session::Session> read = session::readSessionTables(path);
        QVERIFY2(read, read ? "" : read.error().toString().c_str());
        QCOMPARE(read->profileSource, nodeTrace());
        QCOMPARE(read->source, nodeTrace());
        QCOMPARE(read->windowLayout, std::string("AAAA"));
        QCOMPARE(read->annotations.size(), saved.annotations.size());
        for (std::size_t i = 0; i < saved.annotations.size(); ++i) {
            QCOMPARE(read->annotations[i].text, saved.annotations[i].text);
            QCOMPARE(read->annotations[i].fromCycle, saved.annotations[i].fromCycle);
            QCOMPARE(read->annotations[i].toCycle, saved.annotations[i].toCycle);
            QVERIFY(read->annotations[i].slice == saved.annotations[i].slice);
            QVERIFY(!read->annotations[i].anchor);
        }
        QVERIFY(!read->annotations.back().slice); // the plain range stays one
        QCOMPARE(read->bookmarks.size(), std::size_t{1});
        QCOMPARE(read->bookmarks[0].name, std::string("first half"));
        QVERIFY(read->bookmarks[0].selectedSlice == saved.bookmarks[0].selectedSlice);
    }

    void aTraceSessionIsNotAProfileSession()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("plain.xps")).toStdString();
        trace::Trace t;
        t.name = "empty";
        session::Session s;
        s.source = "/traces/empty.xasm";
        QVERIFY(session::writeSession(t, s, path));
        QVERIFY(!session::isProfileSession(path));
        QVERIFY(!session::isProfileSession(nodeTrace())); // not a container at all
        QVERIFY(session::readSessionTables(path)->profileSource.empty());
    }

    void aProfileSessionIsNotReadAsATrace()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("node.xps")).toStdString();
        QVERIFY(session::writeProfileSession(profileSession(imported(nodeTrace()), nodeTrace()), path));
        const Result<trace::Trace> asTrace = trace::readTraceContainer(path);
        QVERIFY(!asTrace);
        const std::string message = asTrace.error().toString();
        QVERIFY2(message.find("a session on the imported profile " + nodeTrace()) != std::string::npos,
                 message.c_str());
        QVERIFY2(message.find("open it in the explorer") != std::string::npos, message.c_str());
        QVERIFY(!session::readSession(path));
    }

    // The anchor names the slice by what the file says: a second import of the same file finds every one.
    void pinnedSlicesAreFoundInAReimport_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("Node.js trace events") << QString::fromStdString(nodeTrace());
        QTest::newRow("Kineto step") << QString::fromStdString(kinetoStep());
    }
    void pinnedSlicesAreFoundInAReimport()
    {
        QFETCH(QString, file);
        const profile::Profile first = imported(file.toStdString());
        const profile::Profile second = imported(file.toStdString());
        std::size_t checked = 0;
        for (std::uint32_t i = 0; i < first.slices.size(); ++i) {
            const auto anchor = session::sliceAnchorOf(first, profile::SliceRow(i));
            QVERIFY(anchor);
            const auto found = session::locateSlice(second, *anchor);
            QVERIFY2(found.valid(), anchor->name.c_str());
            // Two slices of one name starting together on one track are the same to a person; the first
            // is the one found.
            const profile::Slice& a = first.slices[i];
            const profile::Slice& b = second.slice(found);
            QCOMPARE(b.start, a.start);
            QCOMPARE(second.nameOf(b), first.nameOf(a));
            QCOMPARE(second.track(b.track()).name, first.track(a.track()).name);
            ++checked;
        }
        QCOMPARE(checked, first.slices.size());
        QVERIFY(!session::sliceAnchorOf(first,
                                        profile::SliceRow(static_cast<std::uint32_t>(first.slices.size()))));
    }

    void relocateMovesNotesOntoTheirSlices()
    {
        const profile::Profile profile = imported(kinetoStep());
        session::Session s = profileSession(profile, kinetoStep());
        for (session::Annotation& a : s.annotations)
            a.fromCycle = a.toCycle = 0; // as if saved before the times were known
        s.annotations[0].slice->name = "not in this profile";
        const std::size_t missing = session::relocate(s.annotations, profile);
        QCOMPARE(missing, std::size_t{1});
        QCOMPARE(s.annotations[0].fromCycle, std::uint64_t{0}); // not found: keeps its times
        for (std::size_t i = 1; i + 1 < s.annotations.size(); ++i) {
            const auto slice = session::locateSlice(profile, *s.annotations[i].slice);
            QVERIFY(slice.valid());
            QCOMPARE(s.annotations[i].fromCycle, static_cast<std::uint64_t>(profile.slice(slice).start));
            QCOMPARE(s.annotations[i].toCycle, static_cast<std::uint64_t>(profile.slice(slice).end()));
        }
    }

    void theProfileIsFoundBesideAMovedSession()
    {
        QTemporaryDir dir;
        const std::string moved = dir.filePath(QStringLiteral("node_trace.json")).toStdString();
        std::filesystem::copy_file(nodeTrace(), moved);
        const std::string session = dir.filePath(QStringLiteral("s.xps")).toStdString();
        QCOMPARE(session::resolveProfileSource(session, "/elsewhere/gone/node_trace.json"), moved);
        QCOMPARE(session::resolveProfileSource(session, nodeTrace()), nodeTrace()); // where it was saved
        QCOMPARE(session::resolveProfileSource(session, "/elsewhere/gone/other.json"),
                 std::string("/elsewhere/gone/other.json"));
    }

    void hostilePinsAreRefusedWithTheirRow_data()
    {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("expected");
        QTest::newRow("pin without a note")
            << "INSERT INTO annotation_slices VALUES(999, 1, 1, 1, 't', 'n', 0)"
            << "table annotation_slices, row id=999: pins a note the table annotations does not have";
        QTest::newRow("track kind out of range")
            << "UPDATE annotation_slices SET track_kind = 9 WHERE id = 1"
            << "table annotation_slices, row id=1: track_kind 9 is not 0 to 3";
        QTest::newRow("selected slice without its start")
            << "UPDATE bookmarks SET view = "
               "'{\"hidden_lanes\":[],\"selected_pcs\":[],\"selected_slice\":{\"name\":\"x\"}}'"
            << "table bookmarks, row position=0, column view: unexpected content";
    }
    void hostilePinsAreRefusedWithTheirRow()
    {
        QFETCH(QString, sql);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("node.xps")).toStdString();
        QVERIFY(session::writeProfileSession(profileSession(imported(nodeTrace()), nodeTrace()), path));
        {
            sql::Database db;
            QVERIFY(db.open(path, false).empty());
            QCOMPARE(db.exec(sql.toStdString().c_str()), std::string());
        }
        const Result<session::Session> read = session::readSessionTables(path);
        QVERIFY(!read);
        const std::string message = read.error().toString();
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestProfileSession)
#include "tst_profile_session.moc"
