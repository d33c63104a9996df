#include "views/note_markers.h"

#include "session/session_notes.h"
#include "theme/theme.h"
#include "widgets/qcustomplot.h"

namespace xps::ui {

NoteMarkers::NoteMarkers(QCustomPlot* plot, SessionNotes* notes, QObject* parent) : QObject(parent), m_plot(plot), m_notes(notes)
{
    connect(notes, &SessionNotes::notesChanged, this, &NoteMarkers::redraw);
    connect(&Theme::instance(), &Theme::changed, this, &NoteMarkers::redraw);
    redraw();
}

void NoteMarkers::redraw()
{
    for (QCPAbstractItem* item : m_items)
        m_plot->removeItem(item);
    m_items.clear();
    const QColor marker = Theme::instance().note();
    QColor fill = marker;
    fill.setAlpha(45);
    QFont font = m_plot->font();
    font.setPointSizeF(font.pointSizeF() * 0.85);
    int number = 0;
    for (const session::Annotation& note : m_notes->notes()) {
        ++number;
        auto* span = new QCPItemRect(m_plot);
        span->topLeft->setTypeX(QCPItemPosition::ptPlotCoords);
        span->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        span->bottomRight->setTypeX(QCPItemPosition::ptPlotCoords);
        span->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        span->topLeft->setCoords(static_cast<double>(note.fromCycle), 0.0);
        span->bottomRight->setCoords(static_cast<double>(std::max(note.toCycle, note.fromCycle + 1)), 1.0);
        span->setPen(QPen(marker, 2 * Theme::instance().lineScale()));
        span->setBrush(fill);
        span->setSelectable(false);
        auto* label = new QCPItemText(m_plot);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        // Staggered over three heights so neighbouring notes' labels do not cover each other.
        label->position->setCoords(static_cast<double>(note.fromCycle), 0.045 * ((number - 1) % 3));
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setClipToAxisRect(true);
        QString text = QString::fromStdString(note.text).simplified();
        if (text.size() > 40)
            text = text.left(39) + QChar(0x2026);
        label->setText(QStringLiteral("✎ %1 %2").arg(number).arg(text));
        label->setFont(font);
        label->setColor(Qt::black);
        label->setBrush(QColor(0xFF, 0xE0, 0x8A, 230));
        label->setPadding(QMargins(3, 1, 3, 1));
        label->setSelectable(false);
        m_items.push_back(span);
        m_items.push_back(label);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace xps::ui
