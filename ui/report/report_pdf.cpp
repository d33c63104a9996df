#include "report/report_pdf.h"

#include "util/atomic_file.h"

#include <QAbstractTextDocumentLayout>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgRenderer>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>
#include <QUrl>

#include <cmath>

namespace xps::ui {
namespace {

constexpr qreal kLayoutDpi = 96;    // QTextDocument lays out without a paint device at this resolution
constexpr qreal kFooterHeight = 28; // below each page's text, for its number

// The block just before a top-level frame: the heading that introduces a table, if it is one.
QTextBlock blockBefore(QTextDocument& document, QTextFrame* frame)
{
    QTextCursor cursor(&document);
    cursor.setPosition(frame->firstPosition());
    cursor.movePosition(QTextCursor::PreviousBlock);
    return cursor.block();
}

} // namespace

int keepTablesWhole(QTextDocument& document)
{
    const qreal page = document.pageSize().height();
    int moved = 0;
    // Each move reflows what follows it: look again from the top after every one (a report has a few dozen
    // tables at most).
    for (bool changed = true; changed;) {
        changed = false;
        (void)document.documentLayout()->documentSize(); // lays the whole document out
        for (QTextFrame* frame : document.rootFrame()->childFrames()) {
            auto* table = qobject_cast<QTextTable*>(frame);
            if (!table)
                continue;
            const QRectF r = document.documentLayout()->frameBoundingRect(table);
            const auto pageOf = [&](qreal y) { return static_cast<int>(std::floor(y / page)); };
            // Its heading goes with it (a heading alone at a page's foot is an orphan too): the break goes
            // before the heading then, not between the two.
            const QTextBlock heading = blockBefore(document, table);
            const bool headed = heading.isValid() && heading.blockFormat().headingLevel() > 0;
            QTextFrameFormat format = table->frameFormat();
            const bool alreadyMoved =
                (headed ? heading.blockFormat().pageBreakPolicy() : format.pageBreakPolicy()) &
                QTextFormat::PageBreak_AlwaysBefore;
            const bool headingLeftBehind =
                headed &&
                pageOf(document.documentLayout()->blockBoundingRect(heading).top()) != pageOf(r.top());
            if ((pageOf(r.top()) == pageOf(r.bottom() - 1) && !headingLeftBehind) ||
                r.height() > page * 0.9 || alreadyMoved)
                continue; // on one page with its heading, too long for one, or moved already
            if (headed) {
                QTextCursor cursor(heading);
                QTextBlockFormat blockFormat = heading.blockFormat();
                blockFormat.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
                cursor.setBlockFormat(blockFormat);
            } else {
                format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
                table->setFrameFormat(format);
            }
            ++moved;
            changed = true;
            break;
        }
    }
    return moved;
}

std::string writeReportPdf(const report::Report& report, const std::string& path)
{
    QTextDocument document;
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSizeF(9.5);
    document.setDefaultFont(font);
    for (const report::Figure* figure : report::allFigures(report)) {
        QSvgRenderer svg(QByteArray::fromStdString(figure->svg()));
        if (!svg.isValid())
            return "figure '" + figure->id + "' did not render";
        constexpr qreal kScale = 2.0; // sharp when zoomed or printed
        QImage image((svg.defaultSize() * kScale), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        svg.render(&painter);
        painter.end();
        image.setDevicePixelRatio(kScale);
        document.addResource(QTextDocument::ImageResource,
                             QUrl(QString::fromStdString("figure:" + figure->id)), image);
    }
    document.setHtml(QString::fromStdString(report::toHtml(report, true)));

    const Status saved = writeFileAtomically(path, [&](const std::string& temporary) -> Status {
        {
            QPdfWriter pdf(QString::fromStdString(temporary));
            pdf.setPageSize(QPageSize(QPageSize::A4));
            pdf.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
            pdf.setResolution(150);
            pdf.setTitle(QString::fromStdString(report.title));
            pdf.setCreator(QString::fromStdString(report.generator));
            // Paginated here rather than by QTextDocument::print, so that tables which would straddle a page
            // break move to the next page first (keepTablesWhole) and each page is numbered.
            const QRectF area = pdf.pageLayout().paintRect(QPageLayout::Inch);
            const QSizeF page(area.width() * kLayoutDpi, area.height() * kLayoutDpi - kFooterHeight);
            document.setPageSize(page);
            document.rootFrame()->setFrameFormat([&] {
                QTextFrameFormat f = document.rootFrame()->frameFormat();
                f.setMargin(0); // the printer's margins are the page's
                return f;
            }());
            keepTablesWhole(document);
            const int pages = document.pageCount();
            QPainter painter(&pdf);
            const qreal scale = pdf.logicalDpiX() / kLayoutDpi;
            painter.scale(scale, scale);
            painter.setFont(font);
            for (int i = 0; i < pages; ++i) {
                if (i > 0)
                    pdf.newPage();
                painter.save();
                painter.setClipRect(QRectF(QPointF(0, 0), page));
                painter.translate(0, -i * page.height());
                QAbstractTextDocumentLayout::PaintContext context;
                context.clip = QRectF(0, i * page.height(), page.width(), page.height());
                document.documentLayout()->draw(&painter, context);
                painter.restore();
                painter.drawText(QRectF(0, page.height(), page.width(), kFooterHeight),
                                 Qt::AlignRight | Qt::AlignBottom,
                                 QStringLiteral("%1 / %2").arg(i + 1).arg(pages));
            }
        }
        if (QFileInfo(QString::fromStdString(temporary)).size() == 0)
            return Error(temporary, "could not write the PDF");
        return Ok{};
    });
    if (!saved)
        return saved.error().toString();
    return {};
}

} // namespace xps::ui
