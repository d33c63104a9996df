#include "timeline/note_bands.h"

#include "session/session.h"
#include "theme/theme.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace xps::ui {

int drawNoteBands(QPainter& painter, const std::vector<session::Annotation>& notes, const QRect& area,
                  const std::function<double(Ticks)>& xOf)
{
    const Theme& theme = Theme::instance();
    const QColor marker = theme.note();
    QColor fill = marker;
    fill.setAlpha(45);
    QFont font = painter.font();
    font.setPointSizeF(font.pointSizeF() * 0.85);
    const QFontMetrics metrics(font);
    painter.save();
    painter.setClipRect(area);
    painter.setFont(font);
    int number = 0, drawn = 0;
    for (const session::Annotation& note : notes) {
        ++number;
        const auto from = static_cast<Ticks>(note.fromCycle);
        const auto to = std::max(static_cast<Ticks>(note.toCycle), from);
        const double left = std::clamp(xOf(from), area.left() - 10.0, area.right() + 10.0);
        const double right = std::clamp(xOf(to), area.left() - 10.0, area.right() + 10.0);
        if (right < area.left() || left > area.right())
            continue;
        ++drawn;
        const QRectF band(left, area.top(), std::max(right - left, 2.0), area.height());
        painter.fillRect(band, fill);
        painter.setPen(QPen(marker, 2 * theme.lineScale()));
        painter.drawLine(band.topLeft(), band.bottomLeft());
        painter.drawLine(band.topRight(), band.bottomRight());
        QString text = QString::fromStdString(note.text).simplified();
        if (text.size() > 40)
            text = text.left(39) + QChar(0x2026);
        text = QStringLiteral("✎ %1 %2").arg(number).arg(text);
        const int lineHeight = metrics.height() + 2;
        const QRectF label(std::max(left, double(area.left())),
                           area.top() + 2 + lineHeight * ((number - 1) % 3),
                           metrics.horizontalAdvance(text) + 6, lineHeight);
        painter.fillRect(label,
                         QColor(0xFF, 0xE0, 0x8A, 230)); // black on amber in both themes, as the replay's
        painter.setPen(Qt::black);
        painter.drawText(label.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    painter.restore();
    return drawn;
}

} // namespace xps::ui
