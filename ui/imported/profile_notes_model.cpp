#include "imported/profile_notes_model.h"

#include "imported/profile_document.h"
#include "session/session_notes.h"

namespace xps::ui {

ProfileNotesModel::ProfileNotesModel(ProfileDocument* document, SessionNotes* notes, QObject* parent)
    : QAbstractTableModel(parent), m_document(document), m_notes(notes)
{
    // Notes are few (a person writes them): a reset when notes come or go is cheaper than tracking rows. An
    // edit keeps the rows: a reset would tear down the editor that is committing it (and the selection).
    const auto changed = [this] {
        const int rows = rowCount();
        if (rows == m_rows && rows > 0) {
            emit dataChanged(index(0, 0), index(rows - 1, ColumnCount - 1));
            return;
        }
        beginResetModel();
        m_rows = rows;
        endResetModel();
    };
    connect(notes, &SessionNotes::notesChanged, this, changed);
    connect(document, &ProfileDocument::loaded, this, [this] {
        beginResetModel();
        m_rows = rowCount();
        endResetModel();
    });
    m_rows = rowCount();
}

int ProfileNotesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_notes->notes().size());
}

int ProfileNotesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const session::Annotation* ProfileNotesModel::noteAt(int row) const
{
    const auto& notes = m_notes->notes();
    return row >= 0 && static_cast<std::size_t>(row) < notes.size() ? &notes[static_cast<std::size_t>(row)]
                                                                    : nullptr;
}

std::optional<std::uint32_t> ProfileNotesModel::sliceOf(int row) const
{
    const session::Annotation* note = noteAt(row);
    const ProfileRun* run = m_document->run();
    if (!note || !note->slice || !run)
        return std::nullopt;
    return session::locateSlice(run->profile, *note->slice);
}

QString pinnedDescription(const session::Annotation& note)
{
    if (!note.slice)
        return ProfileNotesModel::tr("time range");
    return ProfileNotesModel::tr("%1 on %2")
        .arg(QString::fromStdString(note.slice->name), QString::fromStdString(note.slice->track));
}

QVariant ProfileNotesModel::data(const QModelIndex& index, int role) const
{
    const session::Annotation* note = noteAt(index.row());
    const ProfileRun* run = m_document->run();
    if (!note || !run)
        return {};
    const auto from = static_cast<profile::Nanos>(note->fromCycle);
    const auto to = static_cast<profile::Nanos>(note->toCycle);
    if (role == Qt::TextAlignmentRole && (index.column() == Number || index.column() == When))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Pinned && note->slice && !sliceOf(index.row()))
        return tr("This profile has no such slice; the note stays at the time it was made.");
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    switch (index.column()) {
    case Number: return index.row() + 1;
    case When:
        // From the profile's start, as the timeline's axis counts.
        return tr("%1 (%2)").arg(
            QString::fromStdString(profile::formatMs(from - run->profile.startTime())),
            QString::fromStdString(profile::formatUs(std::max<profile::Nanos>(to - from, 0))));
    case Pinned: return pinnedDescription(*note);
    case Text: return QString::fromStdString(note->text);
    default: return {};
    }
}

QVariant ProfileNotesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Number: return tr("#");
    case When: return tr("at (length)");
    case Pinned: return tr("pinned to");
    case Text: return tr("note");
    default: return {};
    }
}

Qt::ItemFlags ProfileNotesModel::flags(const QModelIndex& index) const
{
    const Qt::ItemFlags base = QAbstractTableModel::flags(index);
    return index.column() == Text ? base | Qt::ItemIsEditable : base;
}

bool ProfileNotesModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    const session::Annotation* note = noteAt(index.row());
    if (!note || role != Qt::EditRole || index.column() != Text)
        return false;
    m_notes->setNoteText(note->id, value.toString().toStdString());
    return true;
}

} // namespace xps::ui
