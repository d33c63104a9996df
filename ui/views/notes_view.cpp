#include "views/notes_view.h"

#include "selection/selection_model.h"
#include "session/notes_model.h"
#include "session/replay_session.h"
#include "session/session_notes.h"
#include "views/event_text.h"
#include "widgets/column_fitter.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace xps::ui {
namespace {

// How a note of a replay reads: its cycles, and the event it is pinned to (found again after each replay).
NoteDescription replayNotes()
{
    NoteDescription d;
    d.whenHeader = NotesView::tr("cycles");
    d.when = [](const session::Annotation& n) {
        return n.toCycle > n.fromCycle
                   ? QStringLiteral("%1–%2").arg(cyclesText(n.fromCycle), cyclesText(n.toCycle))
                   : cyclesText(n.fromCycle);
    };
    d.pinned = [](const session::Annotation& n) {
        if (n.slice) // made on the replay's profile page, on one of its slices
            return NotesView::tr("%1 on %2")
                .arg(QString::fromStdString(n.slice->name), QString::fromStdString(n.slice->track));
        return n.anchor ? NotesView::tr("chip %1 pc %2, execution %3")
                              .arg(n.anchor->chip.value)
                              .arg(n.anchor->pc)
                              .arg(n.anchor->occurrence + 1)
                        : NotesView::tr("time range");
    };
    return d;
}

} // namespace

NotesView::NotesView(ReplaySession* session, SelectionModel* selection, SessionNotes* notes, QWidget* parent)
    : QWidget(parent), m_session(session), m_selection(selection), m_notes(notes),
      m_model(new NotesModel(notes, replayNotes(), this)), m_table(new QTableView(this)),
      m_delete(new QPushButton(tr("Delete"), this)), m_measure(new QLabel(this))
{
    setObjectName(QStringLiteral("notes"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    new ColumnFitter(m_table, NotesModel::Text); // the cycles and the anchor whole, the note's text the rest
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed |
                             QAbstractItemView::SelectedClicked);
    m_table->setWordWrap(false);
    m_measure->setWordWrap(true);
    m_measure->setTextFormat(Qt::RichText);
    m_measure->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_measure->setText(
        tr("<i>Right-click the timeline to add a note. Select two notes to measure between them.</i>"));
    m_delete->setEnabled(false);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_delete);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_measure);
    layout->addLayout(buttons);

    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (index.column() != NotesModel::Text)
            jumpTo(index.row());
    });
    const auto selectionChanged = [this] {
        m_delete->setEnabled(!m_table->selectionModel()->selectedRows().isEmpty());
        measureSelection();
    };
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, selectionChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, selectionChanged);
    connect(m_delete, &QPushButton::clicked, this, &NotesView::removeSelected);
}

std::int64_t NotesView::idAt(int row) const
{
    const session::Annotation* note = m_model->noteAt(row);
    return note ? note->id : 0;
}

void NotesView::jumpTo(int row)
{
    const session::Annotation* n = m_notes->note(idAt(row));
    if (!n)
        return;
    // The note in the middle of a window five times its length (at least 200 cycles).
    const std::uint64_t length = std::max<std::uint64_t>(n->toCycle - n->fromCycle, 40) * 5;
    const std::uint64_t middle = n->fromCycle + (n->toCycle - n->fromCycle) / 2;
    const std::uint64_t from = middle > length / 2 ? middle - length / 2 : 0;
    m_selection->setTimeRange(from, from + length);
}

void NotesView::removeSelected()
{
    std::vector<std::int64_t> ids;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        ids.push_back(idAt(index.row()));
    for (std::int64_t id : ids)
        m_notes->removeNote(id);
}

void NotesView::measureSelection()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const Run* run = m_session->run();
    if (rows.size() != 2 || !run || !run->lanes)
        return;
    const session::Annotation* a = m_notes->note(idAt(rows[0].row()));
    const session::Annotation* b = m_notes->note(idAt(rows[1].row()));
    if (!a || !b)
        return;
    const std::uint64_t from = std::min(a->fromCycle, b->fromCycle), to = std::max(a->toCycle, b->toCycle);
    if (to <= from) {
        m_measure->setText(tr("The two notes are at the same cycle."));
        return;
    }
    const double span = static_cast<double>(to - from);
    // DMA bytes moved within the range: each transfer's bytes prorated by how much of it falls inside.
    double bytes = 0;
    for (const events::DmaRecord& d : run->store.dmas()) {
        const std::uint64_t lo = std::max(d.start, from), hi = std::min(d.end, to);
        if (hi > lo && d.end > d.start)
            bytes += static_cast<double>(d.bytes) * static_cast<double>(hi - lo) / static_cast<double>(d.end - d.start);
    }
    const isa::MachineConfig& machine = run->trace->machine;
    const double seconds = span / (machine.clockMhz * 1e6);
    QString units;
    const auto& lanes = run->lanes->lanes();
    std::vector<double> busy;
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        if (lanes[i].kind != analysis::LaneKind::Unit || !run->lanes->hasActivity(i))
            continue;
        run->lanes->columnTotals(i, from, to, 1, busy);
        units += tr("chip %1 %2 %3%; ")
                     .arg(lanes[i].chip.value)
                     .arg(QString::fromStdString(lanes[i].name))
                     .arg(100.0 * busy[0] / span, 0, 'f', 1);
    }
    units.chop(2);
    m_measure->setText(tr("<b>Δ %1 cycles = %2</b> (cycles %3–%4)<br>DMA moved %5 (%6 GB/s)<br>Utilization: %7")
                           .arg(cyclesText(to - from), timeText(to - from, machine), cyclesText(from), cyclesText(to),
                                bytesText(static_cast<std::uint64_t>(bytes)))
                           .arg(bytes / seconds / 1e9, 0, 'f', 1)
                           .arg(units.isEmpty() ? tr("no unit busy") : units));
}

QString NotesView::measurement() const { return m_measure->text(); }

} // namespace xps::ui
