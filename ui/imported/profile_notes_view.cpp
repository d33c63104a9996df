#include "imported/profile_notes_view.h"
#include "selection/selection_model.h"

#include "imported/profile_document.h"
#include "session/notes_model.h"
#include "session/session_notes.h"
#include "widgets/column_fitter.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace xps::ui {
namespace {

// How a note of an imported profile reads: when, in ms from the profile's start as the timeline's axis
// counts, and how long; pinned to "aten::mm on thread 7", or a time range.
NoteDescription profileNotes(ProfileDocument* document)
{
    NoteDescription d;
    d.whenHeader = ProfileNotesView::tr("at (length)");
    d.when = [document](const session::Annotation& note) {
        const ProfileRun* run = document->run();
        if (!run)
            return QString();
        const auto from = static_cast<profile::Ticks>(note.fromCycle);
        const auto to = static_cast<profile::Ticks>(note.toCycle);
        const profile::Timebase& tb = run->profile.timebase;
        return ProfileNotesView::tr("%1 (%2)").arg(
            QString::fromStdString(tb.ms(from - run->profile.startTime())),
            QString::fromStdString(tb.us(std::max<profile::Ticks>(to - from, 0))));
    };
    d.pinned = [](const session::Annotation& note) {
        if (!note.slice)
            return ProfileNotesView::tr("time range");
        return ProfileNotesView::tr("%1 on %2")
            .arg(QString::fromStdString(note.slice->name), QString::fromStdString(note.slice->track));
    };
    d.pinnedToolTip = [document](const session::Annotation& note) {
        const ProfileRun* run = document->run();
        return note.slice && run && !session::locateSlice(run->profile, *note.slice).valid()
                   ? ProfileNotesView::tr(
                         "This profile has no such slice; the note stays at the time it was made.")
                   : QString();
    };
    return d;
}

} // namespace

ProfileNotesView::ProfileNotesView(ProfileDocument* document, SessionNotes* notes, QWidget* parent)
    : QWidget(parent), m_document(document), m_notes(notes),
      m_model(new NotesModel(notes, profileNotes(document), this)), m_table(new QTableView(this)),
      m_onSlice(new QPushButton(tr("Note on selected slice…"), this)),
      m_onRange(new QPushButton(tr("Note on visible range…"), this)),
      m_delete(new QPushButton(tr("Delete"), this)), m_hint(new QLabel(this))
{
    setObjectName(QStringLiteral("profileNotes"));
    m_onSlice->setObjectName(QStringLiteral("profileNoteOnSlice"));
    m_onRange->setObjectName(QStringLiteral("profileNoteOnRange"));
    m_delete->setObjectName(QStringLiteral("profileNoteDelete"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    // The time and the slice's name whole (a long kernel name up to 320 px), the note's text the rest.
    new ColumnFitter(m_table, NotesModel::Text);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle); // a kernel's name: its start and its end tell it apart
    m_hint->setWordWrap(true);
    m_hint->setText(tr("<i>Right-click the timeline to add a note; double-click a note to show it.</i>"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_onSlice);
    buttons->addWidget(m_onRange);
    buttons->addStretch(1);
    buttons->addWidget(m_delete);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_hint);

    connect(m_onSlice, &QPushButton::clicked, this, [this] { addNoteOnSlice(m_document->selectedSlice()); });
    connect(m_onRange, &QPushButton::clicked, this, &ProfileNotesView::addNoteOnVisibleRange);
    connect(m_delete, &QPushButton::clicked, this, &ProfileNotesView::removeSelected);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (index.column() != NotesModel::Text)
            showNote(index.row());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ProfileNotesView::updateActions);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ProfileNotesView::updateActions);
    connect(document->selection(), &SelectionModel::selectionChanged, this, &ProfileNotesView::updateActions);
    connect(document, &ProfileDocument::loaded, this, [this] {
        m_model->refresh(); // times and slices are the new profile's
        updateActions();
    });
    updateActions();
}

bool ProfileNotesView::notesShown() const
{
    // An import's notes, or a replay's (its profile counts the replay's cycles, as its notes do).
    return m_document->run() != nullptr;
}

void ProfileNotesView::updateActions()
{
    const bool shown = notesShown();
    m_onSlice->setEnabled(shown && m_document->selectedSlice().valid());
    m_onRange->setEnabled(shown);
    m_delete->setEnabled(shown && m_table->selectionModel()->hasSelection());
    m_table->setEnabled(shown);
    if (shown && !m_document->run()->fromFile)
        m_hint->setText(tr("<i>These are the replay's notes: one made here on a slice is pinned to it and "
                           "shown on the replay's timeline too. Right-click the timeline to add a note; "
                           "double-click a note to show it.</i>"));
    else
        m_hint->setText(tr("<i>Right-click the timeline to add a note; double-click a note to show it.</i>"));
}

QString ProfileNotesView::askText(const QString& title, const QString& about)
{
    bool ok = false;
    const QString text = QInputDialog::getMultiLineText(this, title, about, QString(), &ok);
    return ok ? text.trimmed() : QString();
}

void ProfileNotesView::addNoteOnSlice(profile::SliceRow slice)
{
    const ProfileRun* run = m_document->run();
    if (!notesShown() || !slice.valid() || slice.value >= run->profile.slices.size())
        return;
    const profile::Slice& s = run->profile.slice(slice);
    const QString text =
        askText(tr("Note on a slice"), tr("Note on %1:").arg(QString::fromStdString(run->profile.nameOf(s))));
    // The dialog ran the event loop: a newer profile may have replaced this one, its slice `slice` another.
    if (text.isEmpty() || m_document->run() != run)
        return;
    session::Annotation note;
    note.text = text.toStdString();
    note.fromCycle = static_cast<std::uint64_t>(run->profile.slice(slice).start);
    note.toCycle = static_cast<std::uint64_t>(run->profile.slice(slice).end());
    note.slice = session::sliceAnchorOf(run->profile, slice);
    m_notes->addNote(std::move(note));
}

void ProfileNotesView::addNoteOnVisibleRange()
{
    if (!notesShown())
        return;
    const QString text = askText(tr("Note on a time range"), tr("Note on the visible time range:"));
    if (text.isEmpty() || !notesShown())
        return;
    const auto [from, to] = m_document->visibleRange();
    session::Annotation note;
    note.text = text.toStdString();
    note.fromCycle = static_cast<std::uint64_t>(from);
    note.toCycle = static_cast<std::uint64_t>(to);
    m_notes->addNote(std::move(note));
}

void ProfileNotesView::showNote(int row)
{
    const session::Annotation* note = m_model->noteAt(row);
    if (!note || !notesShown())
        return;
    const QString origin = QStringLiteral("notes");
    if (const profile::SliceRow slice = sliceOf(row); slice.valid()) {
        m_document->reveal(slice, origin);
        return;
    }
    const auto from = static_cast<profile::Ticks>(note->fromCycle);
    const auto to = std::max(static_cast<profile::Ticks>(note->toCycle), from + 1);
    const profile::Ticks margin = (to - from) / 10 + 1; // the range's edges in sight
    m_document->setVisibleRange(from - margin, to + margin);
}

profile::SliceRow ProfileNotesView::sliceOf(int row) const
{
    const session::Annotation* note = m_model->noteAt(row);
    const ProfileRun* run = m_document->run();
    if (!note || !note->slice || !run)
        return {};
    return session::locateSlice(run->profile, *note->slice);
}

void ProfileNotesView::removeSelected()
{
    std::vector<std::int64_t> ids;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        if (const session::Annotation* note = m_model->noteAt(index.row()))
            ids.push_back(note->id);
    for (std::int64_t id : ids)
        m_notes->removeNote(id);
}

} // namespace xps::ui
