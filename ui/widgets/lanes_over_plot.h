#pragma once
// The layout the replay's DMA lanes and the profile explorer's Transfers tab share: transfer lanes over a
// bandwidth plot on the same time axis, and a line of text about the selected transfer under both.

#include <QString>

class QCustomPlot;
class QLabel;
class QWidget;

namespace xps::ui {

// Labels and legend of a bandwidth-over-time plot (one series per chip or device).
void setUpBandwidthPlot(QCustomPlot* plot, const QString& yLabel, const QString& xLabel);
// `lanes` over `plot` in a splitter (stretched lanesStretch : plotStretch), `info` under both, in `owner`.
void layOutLanesOverPlot(QWidget* owner, QWidget* lanes, QCustomPlot* plot, QLabel* info, int lanesStretch,
                         int plotStretch);

} // namespace xps::ui
