#pragma once
// Tick counts that fit the axis. QCustomPlot aims at about five ticks whatever the axis's length: in a
// 300 px timeline (presentation mode on a small screen) "0" and "10000" were 29 px apart, and in a 245 px
// summary dock the stall chart's "0100200300400500600" ran together. Ticks here are at least two and a half
// labels apart.

#include "widgets/qcustomplot.h"

#include <QFontMetrics>
#include <QString>

#include <algorithm>
#include <cmath>

namespace xps::ui {

// `decimals`: digits after the point the axis's labels show.
inline void spaceTicksByLabel(QCPAxis* axis, int decimals = 0)
{
    const double largest = std::max(std::abs(axis->range().lower), std::abs(axis->range().upper));
    const QString widest = QString::number(largest, 'f', decimals);
    const int label = std::max(1, QFontMetrics(axis->tickLabelFont()).horizontalAdvance(widest));
    const int length =
        axis->orientation() == Qt::Horizontal ? axis->axisRect()->width() : axis->axisRect()->height();
    axis->ticker()->setTickCount(std::clamp(length * 2 / (label * 5), 2, 8));
}

// Named ticks (buffers on the VMEM heatmap's address axis) whose labels never overlap: a label closer than a
// line of text to the one kept before it is left out at this zoom (its tick stays). Eight small buffers
// between two large ones printed "probs", "av", "attn" and "h1" over each other at 1366x768.
class SpacedTextTicker : public QCPAxisTickerText
{
public:
    explicit SpacedTextTicker(const QCPAxis* axis) : m_axis(axis) {}

protected:
    QVector<QString> createLabelVector(const QVector<double>& ticks, const QLocale& locale, QChar formatChar,
                                       int precision) override
    {
        QVector<QString> labels = QCPAxisTickerText::createLabelVector(ticks, locale, formatChar, precision);
        const double line = QFontMetrics(m_axis->tickLabelFont()).height();
        double kept = -1e300;
        for (qsizetype i = 0; i < ticks.size(); ++i) {
            const double pixel = m_axis->coordToPixel(ticks[i]);
            if (std::abs(pixel - kept) < line)
                labels[i].clear();
            else
                kept = pixel;
        }
        return labels;
    }

private:
    const QCPAxis* m_axis;
};

} // namespace xps::ui
