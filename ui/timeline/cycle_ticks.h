#pragma once
// Cycle counts as tick labels, one form on every replay axis: 500, 2.5 k, 25 M. The lanes (the timeline
// widget) and the plots under them (QCustomPlot: the DMA view's bandwidth, the VMEM heatmap) label the same
// cycles; "20000" under "20 k" read as two different scales.

#include "widgets/qcustomplot.h"

#include <QString>

#include <cstdint>

namespace xps::ui {

// Ticks fall on 1, 2 and 5 x 10^k, so few digits remain.
QString cycleTickLabel(std::int64_t cycles);

// A QCustomPlot axis's ticker that labels its ticks so.
class CycleTicker : public QCPAxisTicker
{
protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

} // namespace xps::ui
