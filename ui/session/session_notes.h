#pragma once
// The notes and bookmarks of the open document, shared by every view: the timeline draws the notes as
// markers, the notes panel lists and edits them, the Bookmarks menu steps through the named views. Views
// change them here and react to the signals, as they do with the selection.

#include "session/session.h"

#include <QObject>

#include <vector>

namespace xps::ui {

class SessionNotes : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    const std::vector<session::Annotation>& notes() const { return m_notes; }
    const std::vector<session::Bookmark>& bookmarks() const { return m_bookmarks; }
    const session::Annotation* note(std::int64_t id) const;

    std::int64_t addNote(session::Annotation note); // assigns and returns its id
    void setNoteText(std::int64_t id, const std::string& text);
    void removeNote(std::int64_t id);
    // After a replay: event-anchored notes move to where their event is now.
    void relocate(const events::EventStore& store);

    void addBookmark(session::Bookmark bookmark);
    void removeBookmark(std::size_t index);

    // A newly opened document's (or nothing).
    void replace(std::vector<session::Annotation> notes, std::vector<session::Bookmark> bookmarks);

signals:
    void notesChanged();
    void bookmarksChanged();

private:
    std::vector<session::Annotation> m_notes;
    std::vector<session::Bookmark> m_bookmarks;
};

} // namespace xps::ui
