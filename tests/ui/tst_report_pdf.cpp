// The printed report keeps its tables whole (#25 point 9): QTextDocument split a table wherever the page
// ended, leaving a header row or a lone row (and the heading above it) at a page's foot. keepTablesWhole
// moves such a table, with its heading, to the next page.
#include "report/report_pdf.h"

#include <QAbstractTextDocumentLayout>
#include <QTest>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>

#include <cmath>

namespace {

int pageOf(qreal y, qreal page)
{
    return static_cast<int>(std::floor(y / page));
}

} // namespace

class TestReportPdf : public QObject
{
    Q_OBJECT
private slots:
    void tablesThatFitAPageAreNotSplit()
    {
        QString html;
        // Paragraphs of varying length, then a heading and a 12-row table, several times over: some tables
        // fall across a page break wherever the page size puts it.
        for (int section = 0; section < 8; ++section) {
            for (int p = 0; p < 3 + section % 4; ++p)
                html +=
                    QStringLiteral("<p>Paragraph %1 of section %2, long enough to wrap onto a second line at "
                                   "this width, and so on for a little while longer.</p>")
                        .arg(p)
                        .arg(section);
            html += QStringLiteral("<h2>Table %1</h2><table border=\"1\">").arg(section);
            for (int r = 0; r < 12; ++r)
                html += QStringLiteral("<tr><td>row %1</td><td>%2</td></tr>").arg(r).arg(r * 1000);
            html += QStringLiteral("</table>");
        }
        QTextDocument document;
        document.setHtml(html);
        const QSizeF page(500, 420);
        document.setPageSize(page);
        const auto straddling = [&] {
            int n = 0;
            (void)document.documentLayout()->documentSize();
            for (QTextFrame* frame : document.rootFrame()->childFrames()) {
                const QRectF r = document.documentLayout()->frameBoundingRect(frame);
                n += pageOf(r.top(), page.height()) != pageOf(r.bottom() - 1, page.height()) ? 1 : 0;
            }
            return n;
        };
        const int before = straddling();
        QVERIFY2(before > 0, "the fixture should have a table across a page break");
        const int pagesBefore = document.pageCount();

        const int moved = xps::ui::keepTablesWhole(document);
        QVERIFY(moved >= 1);
        QCOMPARE(straddling(), 0);
        QCOMPARE(xps::ui::keepTablesWhole(document), 0); // stable
        QVERIFY(document.pageCount() <= pagesBefore + moved);
        // Every heading is on the page of the table it introduces.
        for (QTextFrame* frame : document.rootFrame()->childFrames()) {
            const QRectF table = document.documentLayout()->frameBoundingRect(frame);
            QTextCursor cursor(&document);
            cursor.setPosition(frame->firstPosition());
            cursor.movePosition(QTextCursor::PreviousBlock);
            QVERIFY(cursor.block().blockFormat().headingLevel() == 2);
            const QRectF heading = document.documentLayout()->blockBoundingRect(cursor.block());
            QCOMPARE(pageOf(heading.top(), page.height()), pageOf(table.top(), page.height()));
        }
    }
};

QTEST_MAIN(TestReportPdf)
#include "tst_report_pdf.moc"
