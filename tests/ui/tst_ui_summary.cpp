// What a person reads after opening a run: the summary's critical-path composition agrees with its
// utilisation (matmul_tuned, 91% MXU busy, once read "critical path compute 0.4%, latency 97.9%"), and a
// heatmap with nothing to show says so instead of drawing a blank plot.
#include "main_window.h"
#include "session/replay_session.h"
#include "test_support.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "views/summary_view.h"
#include "views/vmem_heatmap_view.h"
#include "widgets/qcustomplot.h"

#include <QDockWidget>
#include <QFontMetrics>
#include <QTemporaryDir>

#include <QRegularExpression>

using namespace xps;

namespace {

// "compute 97.3%" in the headline's critical path line -> 97.3.
double percentAfter(const QString& headline, const QString& kind)
{
    const QRegularExpression re(QStringLiteral("\\b") + kind + QStringLiteral(" ([0-9.]+)%"));
    const auto m = re.match(headline, headline.indexOf(QStringLiteral("critical path")));
    return m.hasMatch() ? m.captured(1).toDouble() : -1;
}

} // namespace

class TestUiSummary : public test::UiTestSuite
{
    Q_OBJECT
private slots:
    void aComputeBoundKernelReadsAsComputeBound()
    {
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(QString::fromStdString(test::sourceDir()) +
                   QStringLiteral("/resources/samples/matmul_tuned.xtrace.json"));
        QVERIFY(test::waitDone(w));
        QTRY_VERIFY(w.summary()->headline().contains(QStringLiteral("critical path")));
        const QString headline = w.summary()->headline();
        QVERIFY2(headline.contains(QStringLiteral("91.1%")), qPrintable(headline)); // MXU utilization
        QVERIFY2(percentAfter(headline, QStringLiteral("compute")) > 90, qPrintable(headline));
        QVERIFY2(percentAfter(headline, QStringLiteral("latency")) < 5, qPrintable(headline));
    }

    void anEmptyHeatmapSaysWhy()
    {
        // A program that never touches VMEM: scalar work only.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("scalar_only.xasm"));
        test::writeFile(path.toStdString(),
                        ".machine chips=1\n    smov s1, 5\n    sadd s2, s1, 2\n    halt\n");
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(path);
        QVERIFY(test::waitDone(w));
        auto* heatmap = qobject_cast<ui::VmemHeatmapView*>(w.viewByName(QStringLiteral("heatmap")));
        QVERIFY(heatmap);
        test::raiseDockOf(heatmap);
        QTRY_VERIFY(heatmap->isVisible());
        QTRY_COMPARE(heatmap->emptyText(), QStringLiteral("No VMEM writes on chip 0 in this run"));

        // With traffic, no such text.
        w.openFile(QString::fromStdString(test::sourceDir()) +
                   QStringLiteral("/resources/samples/matmul_tuned.xtrace.json"));
        QVERIFY(test::waitDone(w));
        QTRY_VERIFY(w.session()->run() && w.session()->run()->trace->chips.size() == 1 &&
                    heatmap->emptyText().isEmpty());
    }

    // decode_naive's small buffers sit between large ones: at 1366x768 their names ("probs", "av", "attn",
    // "h1") were printed over each other on the address axis. Labels now stay a line apart.
    void heatmapBufferNamesDoNotOverlap()
    {
        ui::MainWindow w(false);
        w.resize(1366, 768);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        auto* heatmap = qobject_cast<ui::VmemHeatmapView*>(w.viewByName(QStringLiteral("heatmap")));
        QVERIFY(heatmap);
        test::raiseDockOf(heatmap);
        QTRY_VERIFY(heatmap->isVisible());
        QCustomPlot* plot = heatmap->plot();
        QVERIFY(plot);
        plot->replot();
        const QCPAxis* y = plot->yAxis;
        const QVector<double> ticks = y->tickVector();
        const QVector<QString> labels = y->tickVectorLabels();
        const int line = QFontMetrics(y->tickLabelFont()).height();
        int shown = 0;
        double last = -1e9;
        for (qsizetype i = 0; i < ticks.size(); ++i) {
            if (labels[i].isEmpty())
                continue;
            ++shown;
            const double pixel = y->coordToPixel(ticks[i]);
            QVERIFY2(std::abs(pixel - last) >= line, qPrintable(labels[i]));
            last = pixel;
        }
        QVERIFY2(shown >= 4 && shown < ticks.size(),
                 qPrintable(QStringLiteral("%1 of %2").arg(shown).arg(ticks.size())));
    }
};

QTEST_MAIN(TestUiSummary)
#include "tst_ui_summary.moc"
