// A StableHLO model opened in the explorer as a user opens it: the .mlir compiles on the session's worker
// and replays; the disassembly shows the .mlir line each bundle came from, and typing an op's name in its
// filter finds that op's bundles.
#include "main_window.h"
#include "model_open_dialog.h"
#include "session/replay_session.h"
#include "test_support.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "views/disassembly_model.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>

#include <algorithm>

using namespace xps;

class TestUiStableHlo : public test::UiTestSuite
{
    Q_OBJECT
private slots:
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

    // A compile stops when the user clicks Cancel: the lowering looks at the stop between ops and the
    // assembler every 4,096 lines, so it ends at once and nothing opens. 5,000 ops on one register each:
    // about 60,000 bundles (near the default instruction memory) and 90 ms of compiling here.
    void cancellingACompileStopsIt()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("long.mlir"));
        const std::string type = "tensor<8x128xf32>";
        std::string text = "module @long {\n  func.func public @main(%x: " + type + ") -> " + type + " {\n";
        std::string last = "%x";
        for (int i = 0; i < 5000; ++i) {
            text += "    %v" + std::to_string(i) + " = stablehlo.negate " + last + " : " + type + "\n";
            last = "%v" + std::to_string(i);
        }
        text += "    return " + last + " : " + type + "\n  }\n}\n";
        test::writeFile(path.toStdString(), text);

        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(path);
        QVERIFY(w.statusText().startsWith(QStringLiteral("Compiling ")));
        QCOMPARE(w.session()->stage(), ui::ReplaySession::Stage::Loading);
        QToolButton* cancel = nullptr;
        for (QToolButton* b : w.findChildren<QToolButton*>())
            if (b->text() == QStringLiteral("Cancel"))
                cancel = b;
        QVERIFY(cancel && cancel->isVisible());
        QElapsedTimer clock;
        qint64 took = -1;
        connect(w.session(), &ui::ReplaySession::openStopped, this, [&] { took = clock.elapsed(); });
        clock.start();
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(took >= 0, 5000);
        qInfo("compile stopped %lld ms after Cancel", took);
        QVERIFY2(took < 50, qPrintable(QString::number(took)));
        QCOMPARE(w.session()->stage(), ui::ReplaySession::Stage::Idle);
        QCOMPARE(w.statusText(), QStringLiteral("Stopped: nothing was opened"));
        QVERIFY(!w.session()->run()); // nothing opened
        QVERIFY(!cancel->isVisible());
    }

    // File > Open of a model asks what its floats run as: the user picks bf16 in the dialog and clicks
    // Open; the f32 sample then compiles with its tensors in bf16 (2 bytes a value in HBM) and replays.
    void aModelOpensAsTheElementTypeAskedFor()
    {
        const QString path =
            QString::fromStdString(test::sourceDir() + "/resources/samples/transformer_block.mlir");
        ui::ModelOpenDialog dialog(path, QString());
        dialog.show();
        auto* types = dialog.findChild<QComboBox*>(QStringLiteral("modelDtype"));
        QVERIFY(types);
        QCOMPARE(dialog.dtype(), QString()); // as exported unless asked
        types->setFocus();
        QTest::keyClick(types, Qt::Key_Down); // "bf16 (as a TPU deployment runs it)"
        QCOMPARE(dialog.dtype(), QStringLiteral("bf16"));
        auto* buttons = dialog.findChild<QDialogButtonBox*>();
        QVERIFY(buttons);
        QTest::mouseClick(buttons->button(QDialogButtonBox::Open), Qt::LeftButton);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));

        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(path, dialog.dtype());
        QTRY_VERIFY_WITH_TIMEOUT(w.session()->stage() == ui::ReplaySession::Stage::Done, 60000);
        QCOMPARE(QString::fromStdString(w.session()->loadOptions().modelDtype), QStringLiteral("bf16"));
        const auto& buffers = w.session()->run()->trace->chips.front().symbols.buffers;
        QVERIFY(!buffers.empty());
        const bool bf16 =
            std::any_of(buffers.begin(), buffers.end(), [](const auto& b) { return b.dtype == "bf16"; });
        const bool f32 =
            std::any_of(buffers.begin(), buffers.end(), [](const auto& b) { return b.dtype == "f32"; });
        QVERIFY(bf16 && !f32);

        // As exported, the same model's tensors stay f32.
        w.openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(w.session()->stage() == ui::ReplaySession::Stage::Done &&
                                     w.session()->loadOptions().modelDtype.empty(),
                                 60000);
        const auto& exported = w.session()->run()->trace->chips.front().symbols.buffers;
        QVERIFY(
            std::none_of(exported.begin(), exported.end(), [](const auto& b) { return b.dtype == "bf16"; }));
    }
};

QTEST_MAIN(TestUiStableHlo)
#include "tst_ui_stablehlo.moc"
