// Two imported profiles side by side: while the explorer shows a profile, File > Compare with… opens
// the other profile beside it. Clicked as a person would, on kineto_step.json (tests/data) and a copy that
// is slower (its two GEMMs +60 us, the step +100 us), recorded 5 ms later, and whose second half starts
// 40 us later: the verdict and the tables hold the two profiles' own numbers (the operations' largest
// change, the devices' breakdowns and the critical paths, read from each profile's own analysis); a row
// shows its operation's first instance selected in both timelines, each from its own start; aligned at an
// operation the two instances start at the same place and a zoom keeps them so; a column sorts; opening
// another file closes the window (a trace beside a profile: tst_ui_compare_across). XPS_SHOT_DIR=DIR saves
// the window at 1366x768 and 1920x1080, light and dark, with each table.
#include "compare/comparison_window.h"
#include "compare/profile_diff_model.h"
#include "imported/profile_document.h"
#include "imported/profile_explorer.h"
#include "imported/profile_text.h"
#include "imported/profile_timeline_view.h"
#include "main_window.h"
#include "slower_kineto_step.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "widgets/table_export.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QWheelEvent>

using namespace xps;

namespace {

QString source(const char* path)
{
    return QString::fromStdString(test::sourceDir()) + QString::fromLatin1(path);
}

// The slower step, recorded 5 ms later, with everything from its 500th us on 40 us later.
QString writeLaterSlowerStep(const QTemporaryDir& dir)
{
    const QString slower = test::writeSlowerKinetoStep(dir);
    nlohmann::json trace = nlohmann::json::parse(test::readFile(slower.toStdString()));
    for (auto& e : trace["traceEvents"])
        if (e.contains("ts"))
            e["ts"] = e["ts"].get<int>() + 5000 + (e["ts"].get<int>() >= 500 ? 40 : 0);
    const QString later = dir.filePath(QStringLiteral("later_step.json"));
    test::writeFile(later.toStdString(), trace.dump());
    return later;
}

// The earliest slice named `name` in `p`, found by a scan of its slices.
profile::SliceRow firstNamed(const profile::Profile& p, const std::string& name)
{
    profile::SliceRow first;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i)
        if (p.string(p.types[p.slices[i].type].name) == name &&
            (!first.valid() || p.slices[i].start < p.slice(first).start))
            first = profile::SliceRow(i);
    return first;
}

QString cell(const QAbstractItemModel* model, int row, int column)
{
    return model->data(model->index(row, column)).toString();
}

int rowOf(const QAbstractItemModel* model, const QString& what, const QString& where = {})
{
    for (int r = 0; r < model->rowCount(); ++r)
        if (cell(model, r, ui::ProfileDiffModel::WhatColumn) == what &&
            (where.isEmpty() || cell(model, r, ui::ProfileDiffModel::WhereColumn) == where))
            return r;
    return -1;
}

QAction* actionNamed(QWidget* widget, const QString& text)
{
    for (QAction* a : widget->actions())
        if (a->text() == text)
            return a;
    return nullptr;
}

void clickRow(QTableView* table, int row)
{
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(table->model()->index(row, 0)).center());
}

const profile::DeviceBreakdown* device(const profile::ProfileAnalysis& a, const std::string& name)
{
    for (const profile::DeviceBreakdown& d : a.devices)
        if (d.name == name)
            return &d;
    return nullptr;
}

QString duration(profile::Nanos ns)
{
    return ui::formatDuration(ns);
}

} // namespace

class TestUiCompareProfiles : public test::UiTestSuite
{
    Q_OBJECT
private slots:
    void compareTwoProfiles()
    {
        QTemporaryDir dir;
        const QString later = writeLaterSlowerStep(dir);
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(source("/tests/data/kineto_step.json"));
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr && w.profileExplorer()->isVisible(),
                                 20000);
        w.compareWith(later);
        ui::ComparisonWindow* cw = w.comparisonWindow();
        QVERIFY(cw);
        QSignalSpy compared(cw, &ui::ComparisonWindow::compared);
        QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 20000);
        const ui::ProfileRun& base = *cw->baselineDocument()->run();
        const ui::ProfileRun& other = *cw->otherDocument()->run();
        QCOMPARE(&base, w.profileDocument()->run()); // the explorer's profile, shared, not imported again
        QCOMPARE(other.profile.startTime() - base.profile.startTime(), profile::Nanos{5'000'000});

        // The verdict: the two spans and critical paths, each profile's own.
        QVERIFY2(
            cw->verdict().startsWith(QStringLiteral("The other profile spans %1 against the baseline's "
                                                    "%2: 10.0% longer (+%3).")
                                         .arg(duration(other.analysis.span), duration(base.analysis.span),
                                              duration(other.analysis.span - base.analysis.span))),
            qPrintable(cw->verdict()));
        QVERIFY2(cw->verdict().contains(QStringLiteral("Its critical path: %1 against %2")
                                            .arg(duration(other.analysis.criticalPath.length),
                                                 duration(base.analysis.criticalPath.length))),
                 qPrintable(cw->verdict()));

        // Operations: the GEMM's 2 x 60 us is the largest change, on top.
        QTableView* ops = cw->table(0);
        QVERIFY(ops->isVisible());
        const QAbstractItemModel* opRows = ops->model();
        QCOMPARE(cell(opRows, 0, ui::ProfileDiffModel::WhatColumn), QStringLiteral("sgemm_128x64"));
        QCOMPARE(cell(opRows, 0, ui::ProfileDiffModel::WhereColumn), QStringLiteral("GPU 0"));
        QCOMPARE(cell(opRows, 0, ui::ProfileDiffModel::CallsColumn), QStringLiteral("2"));
        QCOMPARE(cell(opRows, 0, ui::ProfileDiffModel::BaselineColumn), duration(380'000));
        QCOMPARE(cell(opRows, 0, ui::ProfileDiffModel::OtherColumn), duration(500'000));
        QCOMPARE(cell(opRows, 0, ui::ProfileDiffModel::ChangeColumn),
                 QStringLiteral("+") + duration(120'000));
        QCOMPARE(cell(opRows, 0, ui::ProfileDiffModel::PercentColumn), QStringLiteral("+31.6%"));

        // A row shows the operation's first instance in both timelines, selected, each from its own start.
        clickRow(ops, 0);
        const profile::SliceRow gemmA = firstNamed(base.profile, "sgemm_128x64"),
                                gemmB = firstNamed(other.profile, "sgemm_128x64");
        QCOMPARE(cw->baselineDocument()->selectedSlice(), gemmA);
        QCOMPARE(cw->otherDocument()->selectedSlice(), gemmB);
        QVERIFY(!cw->baselineTimeline()->pointAt(gemmA).isNull());
        QVERIFY(!cw->otherTimeline()->pointAt(gemmB).isNull());
        const auto startsApart = [&] {
            return cw->otherDocument()->visibleRange().first - cw->baselineDocument()->visibleRange().first;
        };
        QCOMPARE(startsApart(), profile::Nanos{5'000'000});
        QCOMPARE(cw->otherDocument()->visibleRange().second - cw->otherDocument()->visibleRange().first,
                 cw->baselineDocument()->visibleRange().second -
                     cw->baselineDocument()->visibleRange().first);

        // Aligned at relu_kernel, which starts 40 us later in the other step: the two instances line up, and
        // a wheel zoom in the baseline's timeline keeps them so.
        cw->alignBox()->setChecked(true);
        const int relu = rowOf(opRows, QStringLiteral("relu_kernel"));
        QVERIFY(relu >= 0);
        clickRow(ops, relu);
        const profile::SliceRow reluA = firstNamed(base.profile, "relu_kernel"),
                                reluB = firstNamed(other.profile, "relu_kernel");
        const profile::Nanos apart = other.profile.slice(reluB).start - base.profile.slice(reluA).start;
        QCOMPARE(apart, profile::Nanos{5'040'000});
        QCOMPARE(cw->offset(), apart);
        QCOMPARE(startsApart(), apart);
        QCOMPARE(cw->otherDocument()->selectedSlice(), reluB);
        const QPoint a = cw->baselineTimeline()->pointAt(reluA), b = cw->otherTimeline()->pointAt(reluB);
        QVERIFY(!a.isNull() && !b.isNull());
        QCOMPARE(a.x(), b.x()); // the same place on screen
        const auto rangeBefore = cw->baselineDocument()->visibleRange();
        QWheelEvent wheel(QPointF(a), cw->baselineTimeline()->mapToGlobal(QPointF(a)), {}, {0, 120},
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(cw->baselineTimeline(), &wheel);
        QVERIFY(cw->baselineDocument()->visibleRange() != rangeBefore);
        QCOMPARE(startsApart(), apart);
        QCOMPARE(cw->otherTimeline()->pointAt(reluB).x(), cw->baselineTimeline()->pointAt(reluA).x());
        cw->alignBox()->setChecked(false); // each from its own start again
        QCOMPARE(cw->offset(), profile::Nanos{5'000'000});
        QCOMPARE(startsApart(), profile::Nanos{5'000'000});

        // A click on a heading sorts by it.
        QTest::mouseClick(ops->horizontalHeader()->viewport(), Qt::LeftButton, {},
                          QPoint(ops->horizontalHeader()->sectionViewportPosition(0) + 10,
                                 ops->horizontalHeader()->height() / 2));
        QString smallest = cell(opRows, 0, 0);
        for (int r = 1; r < opRows->rowCount(); ++r)
            smallest = std::min(smallest, cell(opRows, r, 0).toLower());
        QCOMPARE(cell(opRows, 0, 0).toLower(), smallest);

        // Devices: each device's breakdown, each profile's own.
        cw->tableTabs()->setCurrentIndex(1);
        const QAbstractItemModel* devices = cw->table(1)->model();
        QCOMPARE(cell(devices, 0, ui::ProfileDiffModel::WhatColumn), QStringLiteral("span"));
        const int compute = rowOf(devices, QStringLiteral("GPU 0"), QStringLiteral("compute"));
        QVERIFY(compute > 0);
        QCOMPARE(cell(devices, compute, ui::ProfileDiffModel::BaselineColumn),
                 duration(device(base.analysis, "GPU 0")->compute));
        QCOMPARE(cell(devices, compute, ui::ProfileDiffModel::OtherColumn),
                 duration(device(other.analysis, "GPU 0")->compute));
        QVERIFY(cw->table(1)->isColumnHidden(ui::ProfileDiffModel::CallsColumn));

        // Its context menu copies what it shows as CSV: the visible columns, every row in the shown order.
        QAction* copy = actionNamed(cw->table(1), QStringLiteral("Copy table as CSV"));
        QVERIFY(copy && actionNamed(cw->table(1), QStringLiteral("Save table as CSV…")));
        QApplication::clipboard()->clear();
        copy->trigger();
        const QStringList lines = QApplication::clipboard()->text().split(QStringLiteral("\r\n"));
        QCOMPARE(lines.size(), devices->rowCount() + 2); // the header, the rows, and after the last CRLF, ""
        QVERIFY(lines.back().isEmpty());
        QStringList header, computeRow;
        for (int c = 0; c < devices->columnCount(); ++c)
            if (!cw->table(1)->isColumnHidden(c)) {
                header << devices->headerData(c, Qt::Horizontal).toString();
                computeRow << cell(devices, compute, c);
            }
        QVERIFY(!header.contains(QStringLiteral("Calls")));
        QCOMPARE(lines.front(), header.join(QLatin1Char(',')));
        QCOMPARE(lines.at(compute + 1), computeRow.join(QLatin1Char(',')));
        QTemporaryDir csvDir;
        const QString csvPath = csvDir.filePath(QStringLiteral("devices.csv"));
        QCOMPARE(ui::saveTableAsCsv(*cw->table(1), csvPath), QString());
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(csv.readAll()), QApplication::clipboard()->text());

        // The critical paths: their lengths, and the GEMM's time on each.
        cw->tableTabs()->setCurrentIndex(2);
        const QAbstractItemModel* path = cw->table(2)->model();
        QCOMPARE(cell(path, 0, ui::ProfileDiffModel::BaselineColumn),
                 duration(base.analysis.criticalPath.length));
        QCOMPARE(cell(path, 0, ui::ProfileDiffModel::OtherColumn),
                 duration(other.analysis.criticalPath.length));
        const int gemmOnPath = rowOf(path, QStringLiteral("sgemm_128x64"), QStringLiteral("kernel"));
        QVERIFY(gemmOnPath > 0);
        profile::Nanos gemmTimeA = 0;
        for (const profile::PathSegment& s : base.analysis.criticalPath.segments)
            if (s.kind == profile::PathSegmentKind::Kernel &&
                base.profile.string(base.profile.types[base.profile.slice(s.slice).type].name) ==
                    "sgemm_128x64")
                gemmTimeA += s.end - s.start;
        QCOMPARE(cell(path, gemmOnPath, ui::ProfileDiffModel::BaselineColumn), duration(gemmTimeA));
        clickRow(cw->table(2), gemmOnPath); // its first segment's slice, in both
        QVERIFY(cw->baselineDocument()->selectedSlice().valid());
        QCOMPARE(
            base.profile.string(
                base.profile.types[base.profile.slice(cw->baselineDocument()->selectedSlice()).type].name),
            std::string("sgemm_128x64"));

        test::saveTabShots(cw, cw->tableTabs(), QStringLiteral("compare-profiles"));
        if (const QByteArray shots = qgetenv("XPS_SHOT_DIR"); !shots.isEmpty()) { // the tables' context menu
            QMenu menu(cw);
            menu.addActions(cw->table(0)->actions());
            menu.adjustSize();
            menu.grab().save(QDir(QString::fromLocal8Bit(shots)).filePath(QStringLiteral("table-menu.png")));
        }

        // Another file in the explorer: the comparison's baseline is gone, so is the window.
        w.openFile(later);
        QTRY_VERIFY(!w.comparisonWindow());
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() && w.profileDocument()->run()->path == later,
                                 20000);
    }

    // An unreadable other profile: the window says why, and nothing is compared.
    // CSV fields with a comma, a quote or a line break are quoted, quotes doubled (RFC 4180).
    void tableCsvQuotesWhatItMust()
    {
        QStandardItemModel model(2, 2);
        model.setHorizontalHeaderLabels({QStringLiteral("name"), QStringLiteral("time")});
        model.setItem(0, 0, new QStandardItem(QStringLiteral("all_reduce, bucket 3")));
        model.setItem(0, 1, new QStandardItem(QStringLiteral("1.2 ms")));
        model.setItem(1, 0, new QStandardItem(QStringLiteral("say \"hi\"\nagain")));
        model.setItem(1, 1, new QStandardItem(QStringLiteral("+3.0%")));
        QTableView view;
        view.setModel(&model);
        QCOMPARE(ui::tableAsCsv(view), QStringLiteral("name,time\r\n\"all_reduce, bucket 3\",1.2 ms\r\n"
                                                      "\"say \"\"hi\"\"\nagain\",+3.0%\r\n"));
        // A place that cannot be written: said, naming it.
        const QString unwritable = QStringLiteral("/nonexistent-xps-dir/table.csv");
        const QString error = ui::saveTableAsCsv(view, unwritable);
        QVERIFY2(error.contains(unwritable), qPrintable(error));
        view.horizontalHeader()->moveSection(1, 0); // a dragged column leads
        view.setRowHidden(0, true);
        QCOMPARE(ui::tableAsCsv(view), QStringLiteral("time,name\r\n+3.0%,\"say \"\"hi\"\"\nagain\"\r\n"));
    }

    void unreadableOtherProfile()
    {
        QTemporaryDir dir;
        const QString broken = dir.filePath(QStringLiteral("broken.json"));
        test::writeFile(broken.toStdString(), "{\"traceEvents\": [ {\"ph\": \"X\", \"name\": ");
        ui::MainWindow w(false);
        w.openFile(source("/tests/data/kineto_step.json"));
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr, 20000);
        w.compareWith(broken);
        ui::ComparisonWindow* cw = w.comparisonWindow();
        QVERIFY(cw);
        QTRY_VERIFY_WITH_TIMEOUT(
            cw->verdict().startsWith(QStringLiteral("The other profile could not be opened")), 20000);
        QVERIFY2(cw->verdict().contains(QStringLiteral("broken.json")), qPrintable(cw->verdict()));
        QCOMPARE(cw->model(0)->rowCount(), 0);
        QVERIFY(cw->stopButton()->isHidden());
    }

    // Stop while the other profile is read: nothing is compared, and the window says so.
    void stopBeforeTheOtherIsRead()
    {
        QTemporaryDir dir;
        const QString later = writeLaterSlowerStep(dir);
        ui::MainWindow w(false);
        w.openFile(source("/tests/data/kineto_step.json"));
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr, 20000);
        w.compareWith(later);
        ui::ComparisonWindow* cw = w.comparisonWindow();
        QVERIFY(cw);
        QSignalSpy compared(cw, &ui::ComparisonWindow::compared);
        QTest::mouseClick(cw->stopButton(), Qt::LeftButton); // before the worker's result can arrive
        QCOMPARE(cw->verdict(),
                 QStringLiteral("Stopped before the other profile was read: nothing to compare."));
        QTest::qWait(300);
        QCOMPARE(compared.count(), 0);
        QVERIFY(!cw->otherDocument()->run());
        QCOMPARE(cw->model(0)->rowCount(), 0);
    }
};

QTEST_MAIN(TestUiCompareProfiles)
#include "tst_ui_compare_profiles.moc"
