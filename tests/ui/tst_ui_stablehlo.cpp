// A StableHLO model opened in the explorer as a user opens it: the .mlir compiles on the session's worker
// and replays; the disassembly shows the .mlir line each bundle came from, and typing an op's name in its
// filter finds that op's bundles.
#include "main_window.h"
#include "session/replay_session.h"
#include "test_support.h"
#include "ui_test_support.h"
#include "views/disassembly_model.h"

#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>

using namespace xps;

class TestUiStableHlo : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::startUiTests(); }

    void cleanup()
    {
        const QStringList unexpected = test::takeUnexpectedMessages();
        QVERIFY2(unexpected.isEmpty(), qPrintable(unexpected.join(QStringLiteral("\n"))));
    }

    void aModelOpensCompiledWithItsSourceLines()
    {
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(QString::fromStdString(test::sourceDir() + "/resources/samples/tp_mlp.mlir"));
        QTRY_VERIFY_WITH_TIMEOUT(w.session()->stage() == ui::ReplaySession::Stage::Done, 60000);
        QVERIFY2(w.statusText().startsWith(QStringLiteral("Replayed ")), qPrintable(w.statusText()));
        QCOMPARE(w.session()->run()->trace->chips.size(), std::size_t{2}); // mhlo.num_partitions = 2

        // The disassembly: a source column with the .mlir line of each op's bundles.
        QTableView* table = nullptr;
        for (auto* t : w.findChildren<QTableView*>())
            if (t->model() && t->model()->columnCount() == ui::DisassemblyModel::ColumnCount &&
                t->model()->headerData(ui::DisassemblyModel::Source, Qt::Horizontal).toString() ==
                    QStringLiteral("source"))
                table = t;
        QVERIFY(table);
        QLineEdit* filter = nullptr;
        for (auto* e : w.findChildren<QLineEdit*>())
            if (e->placeholderText().startsWith(QStringLiteral("Filter: mnemonic")))
                filter = e;
        QVERIFY(filter);
        // Type the all_reduce's name, as a user looking for the collective would.
        QTest::keyClicks(filter, QStringLiteral("all_reduce"));
        QTRY_VERIFY(table->model()->rowCount() > 0);
        bool sawCollective = false;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const QString region = table->model()->index(row, ui::DisassemblyModel::Region).data().toString();
            const QString source = table->model()->index(row, ui::DisassemblyModel::Source).data().toString();
            if (region.startsWith(QStringLiteral("all_reduce %11"))) {
                QCOMPARE(source, QStringLiteral("tp_mlp.mlir:24")); // the line of %11 in the file
                sawCollective = true;
            }
        }
        QVERIFY(sawCollective);
    }
};

QTEST_MAIN(TestUiStableHlo)
#include "tst_ui_stablehlo.moc"
