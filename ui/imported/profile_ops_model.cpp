#include "imported/profile_ops_model.h"

#include "imported/profile_text.h"

#include <nlohmann/json.hpp>

namespace xps::ui {

void ProfileOpsModel::setProfile(const profile::Profile* profile, const profile::ProfileAnalysis* analysis)
{
    beginResetModel();
    m_profile = profile;
    m_analysis = analysis;
    m_longNames.clear();
    m_hasDevices = false;
    if (profile && analysis) {
        m_longNames.reserve(analysis->ops.size());
        for (const profile::OpStats& o : analysis->ops) {
            m_hasDevices = m_hasDevices || o.process.valid();
            QString longName;
            // Only an XLA op's argument set has one; the others are not parsed (this runs on the GUI thread).
            const std::uint32_t set = o.longest.valid() ? profile->slice(o.longest).args : 0;
            if (set != 0 && profile->args(set).find("\"long_name\"") != std::string::npos) {
                const auto args = nlohmann::json::parse(profile->args(set), nullptr, false);
                if (args.is_object())
                    if (const auto it = args.find("long_name"); it != args.end() && it->is_string())
                        longName = QString::fromStdString(it->get<std::string>());
            }
            m_longNames.push_back(longName);
        }
    }
    endResetModel();
}

int ProfileOpsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_analysis ? 0 : static_cast<int>(m_analysis->ops.size());
}

int ProfileOpsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileOpsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_analysis || index.row() >= rowCount())
        return {};
    const profile::OpStats& o = m_analysis->ops[static_cast<std::size_t>(index.row())];
    const profile::Ticks mean = o.count ? o.total / static_cast<profile::Ticks>(o.count) : 0;
    if (role == LongestSliceRole)
        return static_cast<qulonglong>(o.longest.value);
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Count ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                       : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::DecorationRole && index.column() == Kind)
        return sliceClassColor(o.cls);
    const QString& longName = m_longNames[static_cast<std::size_t>(index.row())];
    if (role == Qt::ToolTipRole && index.column() == Name)
        return longName.isEmpty() ? QString::fromStdString(m_profile->string(m_profile->types[o.type].name))
                                  : longName;
    if (role == SearchRole)
        return QString(QString::fromStdString(m_profile->string(m_profile->types[o.type].name)) +
                       QLatin1Char('\n') + longName);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    switch (index.column()) {
    case Name: return QString::fromStdString(m_profile->string(m_profile->types[o.type].name));
    case Kind: return QString::fromUtf8(profile::sliceClassName(o.cls).data());
    case Device:
        return o.process.valid() ? QString::fromStdString(m_profile->track(o.process).name) : QString();
    case Count: return static_cast<qulonglong>(o.count);
    case Total:
        return sort ? QVariant(static_cast<qlonglong>(o.total))
                    : QVariant(formatDuration(m_profile->timebase, o.total));
    case Self:
        return sort ? QVariant(static_cast<qlonglong>(o.self))
                    : QVariant(formatDuration(m_profile->timebase, o.self));
    case Mean:
        return sort ? QVariant(static_cast<qlonglong>(mean))
                    : QVariant(formatDuration(m_profile->timebase, mean));
    case Max:
        return sort ? QVariant(static_cast<qlonglong>(o.max))
                    : QVariant(formatDuration(m_profile->timebase, o.max));
    case DeviceTime:
        return sort           ? QVariant(static_cast<qlonglong>(o.deviceTime))
               : o.deviceTime ? QVariant(formatDuration(m_profile->timebase, o.deviceTime))
                              : QVariant();
    default: return {};
    }
}

QVariant ProfileOpsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Operation");
    case Kind: return tr("Kind");
    case Device: return tr("Device");
    case Count: return tr("Count");
    case Total: return tr("Total");
    case Self: return tr("Self");
    case Mean: return tr("Mean");
    case Max: return tr("Max");
    case DeviceTime: return tr("Device time");
    default: return {};
    }
}

} // namespace xps::ui
