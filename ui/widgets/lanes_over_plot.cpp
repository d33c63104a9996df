#include "widgets/lanes_over_plot.h"

#include "widgets/qcustomplot.h"
#include "widgets/wrapping_label.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace xps::ui {

void setUpBandwidthPlot(QCustomPlot* plot, const QString& yLabel, const QString& xLabel)
{
    // Its minimum is the window's too, through the docks tabbed with it: 70 px keeps a 1366x768 window
    // within its screen in presentation mode. The splitter gives it more whenever there is room.
    plot->setMinimumHeight(70);
    plot->yAxis->setLabel(yLabel);
    plot->yAxis->ticker()->setTickCount(3); // a short plot: three labels that do not touch
    plot->xAxis->setLabel(xLabel);
    plot->legend->setVisible(true);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst); // one row across the top: the plot is short
    plot->legend->setFont(QFont(plot->font().family(), 8));
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
}

void layOutLanesOverPlot(QWidget* owner, QWidget* lanes, QCustomPlot* plot, QLabel* info, int lanesStretch,
                         int plotStretch)
{
    info->setTextFormat(Qt::RichText);
    wrapToAnyWidth(info);
    info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* split = new QSplitter(Qt::Vertical, owner);
    split->addWidget(lanes);
    split->addWidget(plot);
    split->setStretchFactor(0, lanesStretch);
    split->setStretchFactor(1, plotStretch);
    // In these proportions from the start, not by the two's size hints: those left the plot its minimum,
    // its axis labels on top of each other.
    split->setSizes({lanesStretch * 1000, plotStretch * 1000});
    auto* layout = new QVBoxLayout(owner);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split, 1);
    layout->addWidget(info);
}

} // namespace xps::ui
