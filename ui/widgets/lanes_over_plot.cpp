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
    plot->xAxis->setLabel(xLabel);
    plot->legend->setVisible(true);
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
    auto* layout = new QVBoxLayout(owner);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split, 1);
    layout->addWidget(info);
}

} // namespace xps::ui
