#pragma once
// The notes and bookmarks of the open document, shared by every view: the timeline draws the notes as
// markers, the notes panel lists and edits them, the Bookmarks menu steps through the named views. Views
// change them here and react to the signals, as they do with the selection.

#include "session/session.h"

#include <QObject>

#include <map>
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
    // Renames bookmark `index`; a name of only spaces is refused (false), as when it is added.
    bool renameBookmark(std::size_t index, const std::string& name);

    // What the person decided about each suggestion, by id; open unless set.
    session::SuggestionState suggestionState(const std::string& id) const;
    void setSuggestionState(const std::string& id, session::SuggestionState state);
    const std::map<std::string, session::SuggestionState>& suggestionStates() const { return m_states; }

    // Times are an imported profile's nanoseconds (int64 bits, session.h; a profile may start before 0), not
    // cycles: set before replace() by whoever opens the document.
    void setSignedTimes(bool on) { m_signedTimes = on; }

    // A newly opened document's (or nothing).
    void replace(std::vector<session::Annotation> notes, std::vector<session::Bookmark> bookmarks,
                 std::map<std::string, session::SuggestionState> states = {});

signals:
    void notesChanged();
    void bookmarksChanged();
    void bookmarkRemoved(int index); // before bookmarksChanged: who keeps an index adjusts it
    void suggestionStatesChanged();

private:
    void sortByTime();
    bool before(std::uint64_t a, std::uint64_t b) const; // in the document's time order

    bool m_signedTimes = false;
    std::vector<session::Annotation> m_notes;
    std::vector<session::Bookmark> m_bookmarks;
    std::map<std::string, session::SuggestionState> m_states;
};

} // namespace xps::ui
