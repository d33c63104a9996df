#include "views/recorded_timing_model.h"

#include "theme/theme.h"
#include "views/event_text.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace xps::ui {

void RecordedTimingModel::setResiduals(analysis::Residuals residuals, const isa::MachineConfig& machine)
{
    beginResetModel();
    m_residuals = std::move(residuals);
    m_machine = machine;
    m_maxAbsError = 0;
    for (const analysis::RegionResidual& r : m_residuals.regions)
        if (r.replayed)
            m_maxAbsError = std::max(m_maxAbsError, std::abs(100.0 * r.relativeError()));
    endResetModel();
}

const analysis::RegionResidual& RecordedTimingModel::residual(int row) const
{
    return m_residuals.regions.at(static_cast<std::size_t>(row));
}

int RecordedTimingModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_residuals.regions.size());
}

int RecordedTimingModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RecordedTimingModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const analysis::RegionResidual& r = residual(index.row());
    const double error = 100.0 * r.relativeError();
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Region: return QString::fromStdString(r.region);
        case Chip: return r.chip.value;
        case Instance: return QVariant::fromValue<qulonglong>(r.instance);
        case Recorded: return cyclesText(r.recorded);
        case Replayed: return r.replayed ? cyclesText(*r.replayed) : tr("not reached");
        case Error: return r.replayed ? QString::asprintf("%+.1f%%", error) : QStringLiteral("—");
        }
        break;
    case SignedErrorRole: return r.replayed ? QVariant(error) : QVariant();
    case SortRole:
        switch (index.column()) {
        case Region: return QString::fromStdString(r.region);
        case Chip: return r.chip.value;
        case Instance: return QVariant::fromValue<qulonglong>(r.instance);
        case Recorded: return QVariant::fromValue<qulonglong>(r.recorded);
        case Replayed: return r.replayed ? QVariant::fromValue<qulonglong>(*r.replayed) : QVariant(-1);
        case Error:
            // The model is furthest from the chip where the replay never got there.
            return r.replayed ? std::abs(error) : std::numeric_limits<double>::infinity();
        case ErrorBar: return r.replayed ? error : -std::numeric_limits<double>::infinity();
        }
        break;
    case Qt::TextAlignmentRole:
        return index.column() == Region ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                        : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == Error && r.replayed && std::abs(error) >= 0.05)
            return Theme::instance().residualColor(error > 0);
        if (!r.replayed && index.column() >= Replayed) {
            QColor dim = Theme::instance().foreground();
            dim.setAlphaF(0.55f);
            return dim;
        }
        break;
    case Qt::ToolTipRole: {
        QString tip = tr("%1, instance %2 on chip %3\nmeasured on the chip: %4 cycles (%5)")
                          .arg(QString::fromStdString(r.region))
                          .arg(r.instance)
                          .arg(r.chip.value)
                          .arg(cyclesText(r.recorded), timeText(r.recorded, m_machine));
        if (r.replayed)
            tip += tr("\nreplayed: %1 cycles (%2), %3 than the chip\nclick to show it in the timeline")
                       .arg(cyclesText(*r.replayed), timeText(*r.replayed, m_machine),
                            error >= 0 ? tr("slower") : tr("faster"));
        else
            tip += tr("\nthe replay never completed this instance");
        return tip;
    }
    default: break;
    }
    return {};
}

QVariant RecordedTimingModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Region: return tr("Region");
        case Chip: return tr("Chip");
        case Instance: return tr("#");
        case Recorded: return tr("Measured cycles");
        case Replayed: return tr("Replayed cycles");
        case Error: return tr("Error");
        case ErrorBar: return tr("← replay faster · replay slower →");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Instance: return tr("Which execution of the region: 0 is the first time it ran");
        case Recorded:
            return tr("The region's duration as recorded on the real chip (the trace's recorded.regions)");
        case Error:
            return tr("(replayed - measured) / measured: positive where the replay is slower than the chip");
        }
    }
    return {};
}

} // namespace xps::ui
