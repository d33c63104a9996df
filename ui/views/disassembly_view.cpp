#include "views/disassembly_view.h"

#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "theme/theme.h"
#include "views/disassembly_model.h"
#include "widgets/column_fitter.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace xps::ui {
namespace {

// Stall cycles by reason as a stacked bar, its length relative to the bundle that stalled most.
class StallBarDelegate : public QStyledItemDelegate
{
public:
    StallBarDelegate(const DisassemblyModel* model, QObject* parent) : QStyledItemDelegate(parent), m_model(model) {}

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::paint(painter, option, index);
        const QList<double> cycles = index.data(DisassemblyModel::BreakdownRole).value<QList<double>>();
        const double max = static_cast<double>(m_model->maxStall());
        if (cycles.isEmpty() || max <= 0)
            return;
        const QRectF area = QRectF(option.rect).adjusted(3, 4, -3, -4);
        double x = area.left();
        painter->save();
        painter->setPen(Qt::NoPen);
        for (int r = 1; r < cycles.size(); ++r) {
            const double w = area.width() * cycles[r] / max;
            if (w <= 0)
                continue;
            painter->setBrush(Theme::instance().stallColor(static_cast<events::StallReason>(r)));
            painter->drawRect(QRectF(x, area.top(), std::max(1.0, w), area.height()));
            x += w;
        }
        painter->restore();
    }

private:
    const DisassemblyModel* m_model;
};

} // namespace

DisassemblyView::DisassemblyView(ReplaySession* session, SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_session(session), m_selection(selection), m_chip(new QComboBox(this)),
      m_filter(new QLineEdit(this)), m_table(new QTableView(this)), m_model(new DisassemblyModel(this)),
      m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("disassembly"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(DisassemblyModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(DisassemblyModel::Pc, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setItemDelegateForColumn(DisassemblyModel::StallBreakdown, new StallBarDelegate(m_model, this));
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::TypeWriter);
    m_table->setFont(mono);
    // Columns as wide as what they show; the bundle text gets the rest of the width instead of being elided
    // beside empty space.
    auto* fitter = new ColumnFitter(m_table, DisassemblyModel::Bundle, 240);
    fitter->setMinimumWidth(DisassemblyModel::StallBreakdown, 140);
    m_filter->setPlaceholderText(tr("Filter: mnemonic, register, region…"));
    m_filter->setClearButtonEnabled(true);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Chip"), this));
    bar->addWidget(m_chip);
    bar->addWidget(m_filter, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);

    connect(m_filter, &QLineEdit::textChanged, this, &DisassemblyView::setFilterText);
    connect(m_chip, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int chip) {
        if (chip >= 0 && chipIdAt(static_cast<std::size_t>(chip)) != m_model->chip())
            setChip(chipIdAt(static_cast<std::size_t>(chip)));
    });
    connect(m_table, &QTableView::clicked, this, &DisassemblyView::onRowActivated);
    connect(m_table, &QTableView::activated, this, &DisassemblyView::onRowActivated);
    connect(session, &ReplaySession::opened, this, &DisassemblyView::onOpened);
    connect(session, &ReplaySession::eventsChanged, m_model, &DisassemblyModel::refreshCounts);
    connect(selection, &SelectionModel::selectionChanged, this, &DisassemblyView::followSelection);
}

void DisassemblyView::setFilterText(const QString& text)
{
    if (m_filter->text() != text)
        m_filter->setText(text);
    m_proxy->setFilterFixedString(text);
}

ChipId DisassemblyView::chip() const
{
    return m_model->chip();
}

void DisassemblyView::onOpened()
{
    const Run* run = m_session->run();
    m_chip->blockSignals(true);
    m_chip->clear();
    for (const trace::ChipTrace& c : run->trace->chips)
        m_chip->addItem(QString::number(c.chip.value));
    m_chip->setCurrentIndex(0);
    m_chip->blockSignals(false);
    m_chip->setEnabled(run->trace->chips.size() > 1);
    setChip(ChipId(0));
}

void DisassemblyView::setChip(ChipId chip)
{
    m_model->setRun(m_session->run(), chip);
    m_chip->blockSignals(true);
    m_chip->setCurrentIndex(chip.value);
    m_chip->blockSignals(false);
}

std::vector<std::uint32_t> DisassemblyView::selectedPcs() const
{
    std::vector<std::uint32_t> pcs;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        pcs.push_back(static_cast<std::uint32_t>(m_proxy->mapToSource(index).row()));
    return pcs;
}

void DisassemblyView::onRowActivated()
{
    if (m_following)
        return;
    Selection s;
    s.origin = tr("disassembly");
    std::uint64_t first = ~std::uint64_t{0}, last = 0;
    for (std::uint32_t pc : selectedPcs()) {
        s.pcs.push_back({m_model->chip(), pc});
        const analysis::PcActivity a = m_model->activity(static_cast<int>(pc));
        if (a.executions) {
            first = std::min(first, a.first);
            last = std::max(last, a.last);
        }
    }
    m_following = true;
    m_selection->select(std::move(s));
    if (last >= first && first != ~std::uint64_t{0}) {
        // Every occurrence in view, with a margin so the first and last are not on the edge.
        const std::uint64_t margin = std::max<std::uint64_t>(32, (last - first) / 20);
        m_selection->setTimeRange(first > margin ? first - margin : 0, last + margin + 1);
    }
    m_following = false;
}

void DisassemblyView::followSelection()
{
    if (m_following)
        return;
    const Selection& s = m_selection->selection();
    if (s.pcs.empty())
        return;
    const ChipId chip =
        std::any_of(s.pcs.begin(), s.pcs.end(), [&](const auto& p) { return p.first == m_model->chip(); })
            ? m_model->chip()
            : s.pcs.front().first;
    if (chip != m_model->chip())
        setChip(chip);
    m_following = true;
    QItemSelection rows;
    for (const auto& [c, pc] : s.pcs) {
        if (c != chip || static_cast<int>(pc) >= m_model->rowCount())
            continue;
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(static_cast<int>(pc), 0));
        if (index.isValid())
            rows.select(index, index.siblingAtColumn(DisassemblyModel::ColumnCount - 1));
    }
    m_table->selectionModel()->select(rows, QItemSelectionModel::ClearAndSelect);
    if (!rows.isEmpty())
        m_table->scrollTo(rows.first().topLeft(), QAbstractItemView::PositionAtCenter);
    m_following = false;
}

} // namespace xps::ui
