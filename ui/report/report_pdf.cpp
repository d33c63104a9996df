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
#include <vector>

namespace xps::ui {
namespace {

constexpr qreal kLayoutDpi = 96;    // QTextDocument lays out without a paint device at this resolution
constexpr qreal kFooterHeight = 28; // below each page's text, for its number

// A top-level item of the document: a block (paragraph, heading, figure) or a frame (a table).
struct Item
{
    QTextBlock block;
    QTextFrame* frame = nullptr;
};

std::vector<Item> topLevelItems(QTextDocument& document)
{
    std::vector<Item> items;
    for (auto it = document.rootFrame()->begin(); !it.atEnd(); ++it)
        items.push_back(it.currentFrame() ? Item{{}, it.currentFrame()} : Item{it.currentBlock(), nullptr});
    return items;
}

bool isHeading(const Item& item)
{
    return !item.frame && item.block.isValid() && item.block.blockFormat().headingLevel() > 0;
}

QRectF boundsOf(QTextDocument& document, const Item& item)
{
    QAbstractTextDocumentLayout* layout = document.documentLayout();
    return item.frame ? layout->frameBoundingRect(item.frame) : layout->blockBoundingRect(item.block);
}

bool breaksBefore(const Item& item)
{
    const auto policy =
        item.frame ? item.frame->frameFormat().pageBreakPolicy() : item.block.blockFormat().pageBreakPolicy();
    return policy & QTextFormat::PageBreak_AlwaysBefore;
}

void breakBefore(const Item& item)
{
    if (item.frame) {
        QTextFrameFormat format = item.frame->frameFormat();
        format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
        item.frame->setFrameFormat(format);
    } else {
        QTextCursor cursor(item.block);
        QTextBlockFormat format = item.block.blockFormat();
        format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
        cursor.setBlockFormat(format);
    }
}

// Whether a table that falls across a page break may stay split there: it is large (moving it would leave
// much of a page empty), and each part keeps enough rows to read (a header with a row or two at a page's
// foot was the orphan #25 complained of). Its header row repeats on the next page. A table taller than a
// page is split in any case: only its first part can be kept from being an orphan.
bool maySplit(const QTextTable& table, const QRectF& bounds, qreal page)
{
    constexpr int kRowsEachSide = 3;
    const int header = table.format().headerRowCount();
    const int body = table.rows() - header;
    const bool tall = bounds.height() > 0.9 * page;
    if (!tall && (bounds.height() <= 0.5 * page || body < 2 * kRowsEachSide))
        return false;
    const qreal rowHeight = bounds.height() / table.rows();
    const qreal left = (std::floor(bounds.top() / page) + 1) * page - bounds.top(); // on the first page
    const int first = static_cast<int>(std::floor(left / rowHeight)) - header;
    return first >= kRowsEachSide && (tall || body - first >= kRowsEachSide);
}

} // namespace

int paginate(QTextDocument& document)
{
    const qreal page = document.pageSize().height();
    const auto pageOf = [&](qreal y) { return static_cast<int>(std::floor(y / page)); };
    // A split table repeats its header rows: QTextDocument's HTML import counts a <thead>'s rows as the
    // table's header (QTextTableFormat::headerRowCount), which every report table has.
    int breaks = 0;
    // Each break reflows what follows it: look again from the top after every one (a report has a few dozen
    // tables and figures at most).
    for (bool changed = true; changed;) {
        changed = false;
        (void)document.documentLayout()->documentSize(); // lays the whole document out
        const std::vector<Item> items = topLevelItems(document);
        for (std::size_t i = 0; i < items.size() && !changed; ++i) {
            const QRectF bounds = boundsOf(document, items[i]);
            // The headings just above this item go with it.
            std::size_t first = i;
            while (first > 0 && isHeading(items[first - 1]))
                --first;
            const Item& moved = items[first];
            if (first == 0 || breaksBefore(moved))
                continue; // already at a page's top (or the document's), nothing to gain
            bool move = false;
            if (isHeading(items[i]))
                continue; // judged with what it introduces
            if (first < i && pageOf(boundsOf(document, moved).top()) != pageOf(bounds.top()))
                move = true; // a heading alone at a page's foot
            auto* table = qobject_cast<QTextTable*>(items[i].frame);
            const bool straddles = pageOf(bounds.top()) != pageOf(bounds.bottom() - 1);
            if (table && straddles && !maySplit(*table, bounds, page))
                move = true; // split where little of it would stay on either side, or short enough to move
            // A figure is one line of the layout, which draws it across the break, cut in two.
            if (!items[i].frame && straddles && bounds.height() <= page * 0.9 &&
                items[i].block.text().contains(QChar::ObjectReplacementCharacter))
                move = true;
            if (move) {
                breakBefore(moved);
                ++breaks;
                changed = true;
            }
        }
    }
    return breaks;
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
            // Paginated here rather than by QTextDocument::print, so that headings stay with what they
            // introduce and short tables are not split (paginate), and each page is numbered.
            const QRectF area = pdf.pageLayout().paintRect(QPageLayout::Inch);
            const QSizeF page(area.width() * kLayoutDpi, area.height() * kLayoutDpi - kFooterHeight);
            document.setPageSize(page);
            document.rootFrame()->setFrameFormat([&] {
                QTextFrameFormat f = document.rootFrame()->frameFormat();
                f.setMargin(0); // the printer's margins are the page's
                return f;
            }());
            paginate(document);
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
