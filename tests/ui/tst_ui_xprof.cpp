// A TPU profile (XProf XSpace) in the explorer, as a TPU user sees it: the devices come first, every core
// is its own process, a plane with nothing on it gets no header, the operations table says which core each
// row ran on and its filter finds an op by its HLO text, and the Transfers view shows an async copy as one
// transfer from its start to its done.
#include "core/xspace_fixture.h"
#include "imported/profile_document.h"
#include "imported/profile_explorer.h"
#include "imported/profile_ops_model.h"
#include "imported/profile_panels.h"
#include "imported/profile_timeline_view.h"
#include "imported/profile_transfers_view.h"
#include "main_window.h"
#include "test_support.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"

#include <QLineEdit>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>

using namespace xps;

class TestUiXProf : public test::UiTestSuite
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void aTpuProfileReadsAsXProfCountsIt()
    {
        tensorflow::profiler::XSpace space = test::twoCoreStep();
        auto* empty = space.add_planes(); // metadata only, as XProf writes "/host:metadata"
        empty->set_id(0);
        empty->set_name("/host:metadata");
        const QString path = m_dir.filePath(QStringLiteral("tpu.xplane.pb"));
        test::writeFile(path.toStdString(), space.SerializeAsString());

        ui::MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr, 20000);
        ui::ProfileExplorer* explorer = w.profileExplorer();

        // Rows: both TPU cores (with their utilization counters) before the host; no row for the plane
        // that holds nothing.
        ui::ProfileTimelineView* timeline = explorer->timeline();
        QStringList labels;
        for (int r = 0; r < timeline->rowCount(); ++r)
            labels << timeline->rowLabel(r);
        QCOMPARE(labels.first(), QStringLiteral("/device:TPU:0"));
        QVERIFY(labels.indexOf(QStringLiteral("/device:TPU:1")) > 0);
        QVERIFY(labels.indexOf(QStringLiteral("/host:CPU")) >
                labels.indexOf(QStringLiteral("/device:TPU:1")));
        QVERIFY(!labels.contains(QStringLiteral("/host:metadata")));
        QVERIFY(labels.contains(QStringLiteral("kernel utilization (%)")));

        // Operations: typing part of the HLO text finds fusion.1, once per core, each row naming its core.
        QTableView* table = explorer->operations()->table();
        QVERIFY(!table->isColumnHidden(ui::ProfileOpsModel::Device));
        QTest::keyClicks(explorer->operations()->filter(), QStringLiteral("kind=kLoop"));
        QCOMPARE(table->model()->rowCount(), 2);
        QStringList devices;
        for (int r = 0; r < 2; ++r) {
            QCOMPARE(table->model()->index(r, ui::ProfileOpsModel::Name).data().toString(),
                     QStringLiteral("fusion.1"));
            devices << table->model()->index(r, ui::ProfileOpsModel::Device).data().toString();
            // Device time: the op's own 20 us on its core.
            QCOMPARE(table->model()->index(r, ui::ProfileOpsModel::DeviceTime).data().toString(),
                     QStringLiteral("20.0 us"));
        }
        devices.sort();
        QCOMPARE(devices, (QStringList{QStringLiteral("/device:TPU:0"), QStringLiteral("/device:TPU:1")}));

        // Transfers: core 0's two async copies are two transfers (not four), 5 MiB, and core 1's async copy
        // (no bytes_accessed) the third; a click on the first says its 4 MiB took 62 us from start to done.
        auto* middle = explorer->findChild<QTabWidget*>(QStringLiteral("profileMiddleTabs"));
        QVERIFY(middle);
        QTest::mouseClick(middle->tabBar(), Qt::LeftButton, Qt::NoModifier,
                          middle->tabBar()->tabRect(middle->indexOf(explorer->transfers())).center());
        QVERIFY(explorer->transfers()->isVisible());
        QTRY_VERIFY(explorer->transfers()->details().contains(QStringLiteral("3 transfers, 5.00 MiB")));
        const profile::Profile& p = w.profileDocument()->run()->profile;
        profile::SliceRow copy;
        for (std::uint32_t i = 0; i < p.slices.size(); ++i)
            if (p.nameOf(p.slices[i]) == "copy-start.3")
                copy = profile::SliceRow(i);
        QVERIFY(copy.valid());
        ui::ProfileTimelineView* lanes = explorer->transfers()->lanes();
        QTRY_VERIFY(lanes->paintedRows() == lanes->rowCount());
        const QPoint at = lanes->pointAt(copy);
        QVERIFY(!at.isNull());
        QTest::mouseClick(lanes, Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(w.profileDocument()->selectedSlice(), copy);
        const QString details = explorer->transfers()->details();
        QVERIFY2(details.contains(QStringLiteral("4.00 MiB in 62.0 us (start to done)")),
                 qPrintable(details));
    }

    void theImportSaysHowFarItHasCome()
    {
        // A Chrome trace of about 45 MB whose size is known: the bar gives a percentage of it (it said only
        // "N MB read", #25 point 10).
        const std::string json = test::kernelTraceJson(400000);
        const QString path = m_dir.filePath(QStringLiteral("progress.json"));
        test::writeFile(path.toStdString(), json);
        const QString megabytes = QString::number(static_cast<double>(json.size()) / 1e6, 'f', 0);

        ui::MainWindow w(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* bar = w.findChild<QProgressBar*>();
        QVERIFY(bar);
        QStringList seen; // what the bar said after each progress report
        connect(w.profileDocument(), &ui::ProfileDocument::progress, this, [&] { seen << bar->text(); });
        w.openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr, 30000);
        QVERIFY(!seen.isEmpty());
        static const QRegularExpression percent(QStringLiteral("^(\\d+)% of (\\d+) MB$"));
        for (const QString& text : seen) {
            const QRegularExpressionMatch m = percent.match(text);
            QVERIFY2(m.hasMatch(), qPrintable(text));
            QCOMPARE(m.captured(2), megabytes);
            QVERIFY(m.captured(1).toInt() <= 100);
        }
    }
};

QTEST_MAIN(TestUiXProf)
#include "tst_ui_xprof.moc"
