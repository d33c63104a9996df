#include "report/report_pdf.h"

#include "util/atomic_file.h"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgRenderer>
#include <QTextDocument>
#include <QUrl>

namespace xps::ui {

std::string writeReportPdf(const report::Report& report, const std::string& path)
{
    QTextDocument document;
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSizeF(9.5);
    document.setDefaultFont(font);
    for (const report::Figure& figure : report.figures) {
        QSvgRenderer svg(QByteArray::fromStdString(figure.svg()));
        if (!svg.isValid())
            return "figure '" + figure.id + "' did not render";
        constexpr qreal kScale = 2.0; // sharp when zoomed or printed
        QImage image((svg.defaultSize() * kScale), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        svg.render(&painter);
        painter.end();
        image.setDevicePixelRatio(kScale);
        document.addResource(QTextDocument::ImageResource, QUrl(QString::fromStdString("figure:" + figure.id)), image);
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
            document.print(&pdf);
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
