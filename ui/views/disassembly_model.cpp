#include "views/disassembly_model.h"

#include "session/replay_session.h"
#include "views/event_text.h"

#include <QHash>

namespace xps::ui {

void DisassemblyModel::setRun(const Run* run, ChipId chip)
{
    beginResetModel();
    m_run = run;
    m_chip = chip;
    m_text.clear();
    m_regions.clear();
    m_sources.clear();
    m_activity.clear();
    m_maxStall = 0;
    if (run && chip.value < run->trace->chips.size()) {
        const trace::ChipTrace& c = run->trace->chips[chip.value];
        // Regions by program order: the static nesting of region.begin / region.end.
        std::vector<QString> open;
        std::size_t line = 0; // source lines are sorted by pc
        QString source;
        // A branch target shows its labels before its bundle, as a listing does (a loop's head: "loop_0: ").
        QHash<std::uint32_t, QString> labels;
        for (const auto& label : c.symbols.labels)
            labels[label.pc] += QString::fromStdString(label.name) + QStringLiteral(":  ");
        for (std::uint32_t pc = 0; pc < c.program.bundles.size(); ++pc) {
            while (line < c.symbols.sourceLines.size() && c.symbols.sourceLines[line].pc <= pc) {
                const auto& l = c.symbols.sourceLines[line++];
                const auto slash = l.file.find_last_of('/');
                source =
                    QString::fromStdString(slash == std::string::npos ? l.file : l.file.substr(slash + 1)) +
                    QLatin1Char(':') + QString::number(l.line);
            }
            m_sources.push_back(source);
            m_text.push_back(labels.value(pc) + bundleText(*run->trace, chip, pc));
            for (const isa::Instruction& insn : c.program.bundles[pc].instructions)
                if (insn.opcode == isa::Opcode::RegionBegin)
                    open.push_back(
                        regionName(*run->trace, chip, static_cast<std::uint32_t>(insn.operands[0].value)));
            m_regions.push_back(open.empty() ? QString() : open.back());
            for (const isa::Instruction& insn : c.program.bundles[pc].instructions)
                if (insn.opcode == isa::Opcode::RegionEnd && !open.empty())
                    open.pop_back();
        }
        m_activity = run->lanes->pcActivities(chip);
        for (const analysis::PcActivity& a : m_activity)
            m_maxStall = std::max(m_maxStall, a.totalStall());
    }
    endResetModel();
}

void DisassemblyModel::refreshCounts()
{
    if (!m_run || m_text.isEmpty())
        return;
    m_activity = m_run->lanes->pcActivities(m_chip);
    m_maxStall = 0;
    for (const analysis::PcActivity& a : m_activity)
        m_maxStall = std::max(m_maxStall, a.totalStall());
    emit dataChanged(index(0, Executions), index(rowCount() - 1, MainReason));
}

analysis::PcActivity DisassemblyModel::activity(int row) const
{
    return row >= 0 && static_cast<std::size_t>(row) < m_activity.size()
               ? m_activity[static_cast<std::size_t>(row)]
               : analysis::PcActivity{};
}

int DisassemblyModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_text.size());
}

int DisassemblyModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DisassemblyModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const int row = index.row();
    const analysis::PcActivity a = activity(row);
    const std::uint64_t stall = a.totalStall();
    int mainReason = 0;
    for (int r = 1; r < events::kStallReasonCount; ++r)
        if (a.stallCycles[r] > a.stallCycles[mainReason])
            mainReason = r;
    if (role == BreakdownRole) {
        QList<double> cycles;
        for (std::uint64_t c : a.stallCycles)
            cycles.push_back(static_cast<double>(c));
        return QVariant::fromValue(cycles);
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Pc: return row;
        case Executions: return static_cast<qulonglong>(a.executions);
        case FirstIssue:
            return a.executions ? static_cast<qulonglong>(a.first) : std::numeric_limits<qulonglong>::max();
        case StallCycles:
        case StallBreakdown: return static_cast<qulonglong>(stall);
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::TextAlignmentRole && (index.column() == Pc || index.column() == Executions ||
                                          index.column() == FirstIssue || index.column() == StallCycles))
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == StallBreakdown && stall) {
        QString t;
        for (int r = 1; r < events::kStallReasonCount; ++r)
            if (a.stallCycles[r])
                t += QStringLiteral("%1: %2 cycles\n")
                         .arg(QString::fromUtf8(
                                  events::stallReasonName(static_cast<events::StallReason>(r)).data()),
                              cyclesText(a.stallCycles[r]));
        return t.trimmed();
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Pc: return row;
    case Region: return m_regions[row];
    case Source: return m_sources[row];
    case Bundle: return m_text[row];
    case Executions: return cyclesText(a.executions);
    case FirstIssue: return a.executions ? cyclesText(a.first) : QString();
    case StallCycles: return stall ? cyclesText(stall) : QString();
    case StallBreakdown: return {};
    case MainReason:
        return stall ? QString::fromUtf8(
                           events::stallReasonName(static_cast<events::StallReason>(mainReason)).data())
                     : QString();
    default: return {};
    }
}

QVariant DisassemblyModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Pc: return tr("pc");
    case Region: return tr("region");
    case Source: return tr("source");
    case Bundle: return tr("bundle");
    case Executions: return tr("executions");
    case FirstIssue: return tr("first issue");
    case StallCycles: return tr("stall cycles");
    case StallBreakdown: return tr("stalls by reason");
    case MainReason: return tr("main reason");
    default: return {};
    }
}

} // namespace xps::ui
