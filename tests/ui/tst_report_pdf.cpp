// The printed report's pages break where a careful typesetter would break them (and the
// whitespace a review noticed): QTextDocument split a table wherever the page ended, leaving a header row
// or a lone row (and the heading above it) at a page's foot; keeping every table whole instead left half
// pages empty before long tables, and a heading could still stay behind its figure. paginate() moves short
// tables and every heading's run with what it introduces, and lets a long table split where both parts keep
// a few rows, its header repeated.
#include "report/report_pdf.h"

#include <QAbstractTextDocumentLayout>
#include <QImage>
#include <QTest>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>
#include <QUrl>

#include <cmath>

namespace {

int pageOf(qreal y, qreal page)
{
    return static_cast<int>(std::floor(y / page));
}

QString paragraphs(int n, int section)
{
    QString html;
    for (int p = 0; p < n; ++p)
        html +=
            QStringLiteral("<p>Paragraph %1 of section %2, long enough to wrap onto a second line at this "
                           "width, and so on for a little while longer.</p>")
                .arg(p)
                .arg(section);
    return html;
}

QString table(int section, int rows)
{
    QString html =
        QStringLiteral(
            "<h2>Table %1</h2><table border=\"1\"><thead><tr><th>what</th><th>value</th></tr></thead>"
            "<tbody>")
            .arg(section);
    for (int r = 0; r < rows; ++r)
        html += QStringLiteral("<tr><td>row %1</td><td>%2</td></tr>").arg(r).arg(r * 1000);
    return html + QStringLiteral("</tbody></table>");
}

// The heading just above a top-level frame or block, if it is one.
QTextBlock headingBefore(QTextDocument& document, int position)
{
    QTextCursor cursor(&document);
    cursor.setPosition(position);
    cursor.movePosition(QTextCursor::PreviousBlock);
    return cursor.block().blockFormat().headingLevel() > 0 ? cursor.block() : QTextBlock();
}

} // namespace

class TestReportPdf : public QObject
{
    Q_OBJECT
private slots:
    void tablesBreakWhereBothPartsRead()
    {
        QString html;
        // Paragraphs of varying length, then a heading and a table of 4 to 34 rows, many times over: tables
        // fall across page breaks wherever the page size puts them.
        for (int section = 0; section < 16; ++section)
            html += paragraphs(2 + section % 4, section) + table(section, 4 + (section * 7) % 31);
        QTextDocument document;
        document.setHtml(html);
        const QSizeF page(500, 420);
        document.setPageSize(page);
        const int pagesBefore = document.pageCount();
        QAbstractTextDocumentLayout* layout = document.documentLayout();
        const auto rowsPerPage = [&](QTextTable* t) {
            std::map<int, int> rows; // page -> body rows on it
            for (int r = t->format().headerRowCount(); r < t->rows(); ++r)
                ++rows[pageOf(layout->blockBoundingRect(t->cellAt(r, 0).firstCursorPosition().block()).top(),
                              page.height())];
            return rows;
        };

        const int breaks = xps::ui::paginate(document);
        QVERIFY(breaks >= 1);
        QCOMPARE(xps::ui::paginate(document), 0); // stable
        QVERIFY(document.pageCount() <= pagesBefore + breaks);
        int split = 0;
        (void)layout->documentSize();
        for (QTextFrame* frame : document.rootFrame()->childFrames()) {
            auto* t = qobject_cast<QTextTable*>(frame);
            QVERIFY(t);
            QCOMPARE(t->format().headerRowCount(), 1); // the <thead> repeats on a second page
            const QRectF bounds = layout->frameBoundingRect(t);
            const bool straddles =
                pageOf(bounds.top(), page.height()) != pageOf(bounds.bottom() - 1, page.height());
            // Every heading is on the page of the table it introduces.
            const QTextBlock heading = headingBefore(document, frame->firstPosition());
            QVERIFY(heading.isValid());
            QCOMPARE(pageOf(layout->blockBoundingRect(heading).top(), page.height()),
                     pageOf(bounds.top(), page.height()));
            if (!straddles)
                continue;
            ++split;
            // Split only when long, and both parts keep at least three rows.
            QVERIFY2(bounds.height() > 0.5 * page.height(), qPrintable(heading.text()));
            const std::map<int, int> rows = rowsPerPage(t);
            QString seen;
            for (const auto& [p, n] : rows)
                seen += QStringLiteral(" page %1: %2 rows;").arg(p).arg(n);
            // A table taller than a page: only its first part can be held to three rows.
            const bool tall = bounds.height() > 0.9 * page.height();
            QVERIFY2(tall || rows.size() == 2, qPrintable(heading.text() + seen));
            QVERIFY2(rows.begin()->second >= 3, qPrintable(heading.text() + seen));
            QVERIFY2(tall || rows.rbegin()->second >= 3, qPrintable(heading.text() + seen));
        }
        QVERIFY2(split > 0, "the fixture should have a long table split over two pages");
    }

    // Short tables are never split: they move to the next page with their heading.
    void shortTablesAreNotSplit()
    {
        QString html;
        for (int section = 0; section < 10; ++section)
            html += paragraphs(3 + section % 4, section) + table(section, 6);
        QTextDocument document;
        document.setHtml(html);
        const QSizeF page(500, 420);
        document.setPageSize(page);
        xps::ui::paginate(document);
        (void)document.documentLayout()->documentSize();
        for (QTextFrame* frame : document.rootFrame()->childFrames()) {
            const QRectF r = document.documentLayout()->frameBoundingRect(frame);
            QCOMPARE(pageOf(r.top(), page.height()), pageOf(r.bottom() - 1, page.height()));
        }
    }

    // A figure is never cut in two by a page break, and the headings above it go to the next page with it.
    void aHeadingStaysWithItsFigure()
    {
        QTextDocument document;
        QImage figure(400, 150, QImage::Format_RGB32);
        figure.fill(Qt::darkCyan);
        document.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("figure:f")), figure);
        QString html;
        for (int section = 0; section < 6; ++section)
            html += paragraphs(2 + section % 3, section) +
                    QStringLiteral("<h2>Figures</h2><h3>Figure %1</h3><p><img src=\"figure:f\"></p>")
                        .arg(section);
        document.setHtml(html);
        const QSizeF page(500, 420);
        document.setPageSize(page);
        xps::ui::paginate(document);
        (void)document.documentLayout()->documentSize();
        int figures = 0;
        for (QTextBlock b = document.begin(); b.isValid(); b = b.next()) {
            if (!b.text().contains(QChar::ObjectReplacementCharacter))
                continue;
            ++figures;
            const QRectF image = document.documentLayout()->blockBoundingRect(b);
            // Never cut by a page break (the layout draws a figure, one line, across it).
            QCOMPARE(pageOf(image.top(), page.height()), pageOf(image.bottom() - 1, page.height()));
            // Both headings above it are on its page.
            for (QTextBlock h = b.previous(); h.isValid() && h.blockFormat().headingLevel() > 0;
                 h = h.previous())
                QCOMPARE(pageOf(document.documentLayout()->blockBoundingRect(h).top(), page.height()),
                         pageOf(image.top(), page.height()));
        }
        QCOMPARE(figures, 6);
    }
};

QTEST_MAIN(TestReportPdf)
#include "tst_report_pdf.moc"
