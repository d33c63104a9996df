// A replay beside a profile: File > Compare with… puts the GRM's run of a program
// beside a profile of another run in the profile comparison window, whichever the explorer shows. The
// replay is seen as its profile, counting its cycles (1050 MHz: 20/21 ns a cycle), the profile counts
// nanoseconds; the window keeps the two timelines on one time axis through both timebases. Clicked as a
// person would, on the decode_naive sample and the tuned sample's replay written as Chrome JSON (a stand-in
// for a measured profile): the verdict and the tables hold each run's own numbers, a row aligned shows both
// instances at the same place on screen and a zoom keeps them so; a broken trace is said. XPS_SHOT_DIR=DIR
// saves the window at 1366x768 and 1920x1080, light and dark, with each table.
#include "compare/comparison_window.h"
#include "compare/profile_diff_model.h"
#include "export/chrome_trace.h"
#include "imported/profile_document.h"
#include "imported/profile_text.h"
#include "imported/profile_timeline_view.h"
#include "main_window.h"
#include "replayed_profile.h"
#include "session/replay_session.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QWheelEvent>

#include <nlohmann/json.hpp>

using namespace xps;

namespace {

QString sample(const char* name)
{
    return QString::fromStdString(test::sourceDir()) + QStringLiteral("/resources/samples/") +
           QString::fromLatin1(name);
}

// The tuned sample's replay as a profile in Chrome JSON, read in nanoseconds as a measured profile would be:
// the export's timebase and its critical path (in cycles) taken out, so the file is what another tool wrote.
QString writeTunedProfile(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("decode_tuned.json"));
    const Result<profile::Profile> p =
        sim::replayedProfileOf(sample("decode_tuned.xtrace.json").toStdString());
    if (!p || !exporting::writeChromeTrace(*p, path.toStdString()))
        qFatal("cannot write the tuned profile");
    nlohmann::json file = nlohmann::json::parse(test::readFile(path.toStdString()));
    file["xpushark_semantics"].erase("timebase");
    file.erase("xpushark_critical_path");
    test::writeFile(path.toStdString(), file.dump());
    return path;
}

QString cell(const QAbstractItemModel* model, int row, int column)
{
    return model->data(model->index(row, column)).toString();
}

int rowOf(const QAbstractItemModel* model, const QString& what)
{
    for (int r = 0; r < model->rowCount(); ++r)
        if (cell(model, r, ui::ProfileDiffModel::WhatColumn) == what)
            return r;
    return -1;
}

void clickRow(QTableView* table, int row)
{
    table->scrollTo(table->model()->index(row, 0));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(table->model()->index(row, 0)).center());
}

profile::SliceRow firstNamed(const profile::Profile& p, const std::string& name)
{
    profile::SliceRow first;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i)
        if (p.nameOf(p.slices[i]) == name && (!first.valid() || p.slices[i].start < p.slice(first).start))
            first = profile::SliceRow(i);
    return first;
}

// The nanoseconds a document's visible range spans, through its profile's timebase.
std::pair<profile::Nanos, profile::Nanos> visibleNanos(const ui::ProfileDocument* doc)
{
    const auto [from, to] = doc->visibleRange();
    const profile::Timebase& t = doc->run()->profile.timebase;
    return {t.toNanos(from), t.toNanos(to)};
}

// The window's two runs: each with its own numbers in the verdict and the operations table, on one axis.
void checkTheComparison(ui::ComparisonWindow* cw, const ui::ProfileRun& replay,
                        const ui::ProfileRun& imported, bool replayIsBaseline)
{
    const ui::ProfileRun& base = *cw->baselineDocument()->run();
    const ui::ProfileRun& other = *cw->otherDocument()->run();
    QCOMPARE(&base, replayIsBaseline ? &replay : &imported);
    QCOMPARE(&other, replayIsBaseline ? &imported : &replay);
    QCOMPARE(replay.profile.format, std::string(profile::kReplayFormat));
    QVERIFY(replay.profile.timebase == profile::Timebase::cyclesAt(1050));
    QVERIFY(imported.profile.timebase.isNanoseconds());
    const profile::Nanos spanA = base.profile.timebase.toNanos(base.analysis.span);
    const profile::Nanos spanB = other.profile.timebase.toNanos(other.analysis.span);
    QVERIFY2(cw->verdict().startsWith(QStringLiteral("The other profile spans %1 against the baseline's %2: ")
                                          .arg(ui::formatDuration(spanB), ui::formatDuration(spanA))),
             qPrintable(cw->verdict()));
    QVERIFY2(cw->verdict().contains(replayIsBaseline ? QStringLiteral("shorter") : QStringLiteral("longer")),
             qPrintable(cw->verdict()));

    // The decode layer, a region of the trace and an annotation of the profile: each run's own time.
    QTableView* ops = cw->table(0);
    const int layer = rowOf(ops->model(), QStringLiteral("decode_layer"));
    QVERIFY(layer >= 0);
    const auto layerNs = [](const ui::ProfileRun& r) {
        const profile::Slice& s = r.profile.slice(firstNamed(r.profile, "decode_layer"));
        return r.profile.timebase.toNanos(s.end()) - r.profile.timebase.toNanos(s.start);
    };
    QCOMPARE(cell(ops->model(), layer, ui::ProfileDiffModel::BaselineColumn),
             ui::formatDuration(layerNs(base)));
    QCOMPARE(cell(ops->model(), layer, ui::ProfileDiffModel::OtherColumn),
             ui::formatDuration(layerNs(other)));

    // One axis: the two timelines show the same length of time, each from its own start.
    const auto [a0, a1] = visibleNanos(cw->baselineDocument());
    const auto [b0, b1] = visibleNanos(cw->otherDocument());
    QVERIFY2(std::llabs((b1 - b0) - (a1 - a0)) <= 2,
             qPrintable(QStringLiteral("%1 against %2 ns").arg(b1 - b0).arg(a1 - a0)));
    QVERIFY(std::llabs((b0 - a0) - cw->offset()) <= 1);

    // Aligned at the decode layer: both instances at the same place on screen, and a zoom keeps them so.
    cw->alignBox()->setChecked(true);
    clickRow(ops, layer);
    const profile::SliceRow layerA = firstNamed(base.profile, "decode_layer");
    const profile::SliceRow layerB = firstNamed(other.profile, "decode_layer");
    QCOMPARE(cw->baselineDocument()->selectedSlice(), layerA);
    QCOMPARE(cw->otherDocument()->selectedSlice(), layerB);
    QCOMPARE(cw->offset(), other.profile.timebase.toNanos(other.profile.slice(layerB).start) -
                               base.profile.timebase.toNanos(base.profile.slice(layerA).start));
    // Where each instance begins on screen (the two layers differ in length: their middles do not meet).
    const auto startX = [&](ui::ProfileTimelineView* view, const ui::ProfileRun& r, profile::SliceRow s) {
        return view->xOf(r.profile.slice(s).start);
    };
    QVERIFY(!cw->baselineTimeline()->pointAt(layerA).isNull() &&
            !cw->otherTimeline()->pointAt(layerB).isNull());
    const double xa = startX(cw->baselineTimeline(), base, layerA);
    QVERIFY2(
        std::abs(xa - startX(cw->otherTimeline(), other, layerB)) < 1.0,
        qPrintable(QStringLiteral("%1 against %2").arg(xa).arg(startX(cw->otherTimeline(), other, layerB))));
    const auto [c0, c1] = visibleNanos(cw->baselineDocument());
    const QPointF at(xa + 5, cw->baselineTimeline()->pointAt(layerA).y());
    for (int notch = 0; notch < 3; ++notch) {
        QWheelEvent wheel(at, cw->baselineTimeline()->mapToGlobal(at), {}, {0, 120}, Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(cw->baselineTimeline(), &wheel);
    }
    const double za = startX(cw->baselineTimeline(), base, layerA);
    QVERIFY2(
        std::abs(za - startX(cw->otherTimeline(), other, layerB)) < 1.0,
        qPrintable(QStringLiteral("%1 against %2").arg(za).arg(startX(cw->otherTimeline(), other, layerB))));
    const auto [z0, z1] = visibleNanos(cw->baselineDocument());
    const auto [y0, y1] = visibleNanos(cw->otherDocument());
    QVERIFY(z1 - z0 < c1 - c0); // zoomed in
    QVERIFY(std::llabs((y1 - y0) - (z1 - z0)) <= 2);
    cw->alignBox()->setChecked(false);
}

// File > Compare with `other`: the window, once it has compared.
ui::ComparisonWindow* comparedWith(ui::MainWindow& w, const QString& other)
{
    w.compareWith(other);
    if (!QTest::qWaitFor([&] { return w.comparisonWindow() != nullptr; }, 20000))
        return nullptr;
    // Its tables filled: showDiff ran to its end (a spy made now could miss a `compared` already sent).
    ui::ComparisonWindow* cw = w.comparisonWindow();
    return QTest::qWaitFor([&] { return cw->model(0)->rowCount() > 0; }, 20000) ? cw : nullptr;
}

} // namespace

class TestUiCompareAcross : public test::UiTestSuite
{
    Q_OBJECT
private slots:
    // The explorer shows a replay: a profile chosen is compared with the replay's profile, made first.
    void aReplayBesideAProfile()
    {
        QTemporaryDir dir;
        const QString tuned = writeTunedProfile(dir);
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(sample("decode_naive.xtrace.json"));
        QTRY_VERIFY_WITH_TIMEOUT(w.session()->analysesAvailable(), 60000);
        ui::ComparisonWindow* cw = comparedWith(w, tuned);
        QVERIFY(cw);
        // The explorer turned to the replay's profile, the baseline, shared.
        QVERIFY(w.replayAsProfileAction()->isChecked());
        QCOMPARE(cw->baselineDocument()->run(), w.profileDocument()->run());
        checkTheComparison(cw, *cw->baselineDocument()->run(), *cw->otherDocument()->run(), true);
        test::saveTabShots(cw, cw->tableTabs(), QStringLiteral("compare-replay-profile"));

        // A second comparison reuses the replay's profile: no conversion again.
        const ui::ProfileRun* replayProfile = w.profileDocument()->run();
        w.compareWith(tuned);
        QVERIFY(w.comparisonWindow() != nullptr);
        QCOMPARE(w.profileDocument()->run(), replayProfile);
    }

    // The explorer shows a profile: a trace chosen is replayed and compared as its profile.
    void aProfileBesideATrace()
    {
        QTemporaryDir dir;
        const QString tuned = writeTunedProfile(dir);
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(tuned);
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr, 20000);
        w.compareWith(sample("decode_naive.xtrace.json"));
        QVERIFY(w.comparisonWindow());
        QCOMPARE(w.comparisonWindow()->verdict(), QStringLiteral("Replaying the other trace…"));
        ui::ComparisonWindow* cw = comparedWith(w, sample("decode_naive.xtrace.json"));
        QVERIFY(cw);
        QCOMPARE(cw->baselineDocument()->run(), w.profileDocument()->run());
        checkTheComparison(cw, *cw->otherDocument()->run(), *cw->baselineDocument()->run(), false);
    }

    // A trace that cannot be read: the window says why, naming it.
    void aBrokenTraceIsSaid()
    {
        QTemporaryDir dir;
        const QString tuned = writeTunedProfile(dir);
        const QString broken = dir.filePath(QStringLiteral("broken.xasm"));
        test::writeFile(broken.toStdString(), "  vadd v1, v2,\n");
        ui::MainWindow w(false);
        w.openFile(tuned);
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr, 20000);
        w.compareWith(broken);
        ui::ComparisonWindow* cw = w.comparisonWindow();
        QVERIFY(cw);
        QTRY_VERIFY_WITH_TIMEOUT(
            cw->verdict().startsWith(QStringLiteral("The other profile could not be opened")), 20000);
        QVERIFY2(cw->verdict().contains(QStringLiteral("broken.xasm:1:")), qPrintable(cw->verdict()));
        QCOMPARE(cw->model(0)->rowCount(), 0);
    }
};

QTEST_MAIN(TestUiCompareAcross)
#include "tst_ui_compare_across.moc"
