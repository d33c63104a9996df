#include "session/session_notes.h"

#include <algorithm>

namespace xps::ui {

const session::Annotation* SessionNotes::note(std::int64_t id) const
{
    const auto it = std::find_if(m_notes.begin(), m_notes.end(), [&](const session::Annotation& a) { return a.id == id; });
    return it == m_notes.end() ? nullptr : &*it;
}

std::int64_t SessionNotes::addNote(session::Annotation note)
{
    std::int64_t next = 1;
    for (const session::Annotation& a : m_notes)
        next = std::max(next, a.id + 1);
    note.id = next;
    if (before(note.toCycle, note.fromCycle))
        std::swap(note.fromCycle, note.toCycle);
    m_notes.push_back(std::move(note));
    sortByTime();
    emit notesChanged();
    return next;
}

void SessionNotes::setNoteText(std::int64_t id, const std::string& text)
{
    for (session::Annotation& a : m_notes)
        if (a.id == id && a.text != text) {
            a.text = text;
            emit notesChanged();
        }
}

void SessionNotes::removeNote(std::int64_t id)
{
    const auto before = m_notes.size();
    std::erase_if(m_notes, [&](const session::Annotation& a) { return a.id == id; });
    if (m_notes.size() != before)
        emit notesChanged();
}

void SessionNotes::relocate(const events::EventStore& store)
{
    if (std::none_of(m_notes.begin(), m_notes.end(), [](const session::Annotation& a) { return a.anchor.has_value(); }))
        return;
    session::relocate(m_notes, store);
    sortByTime();
    emit notesChanged();
}

void SessionNotes::addBookmark(session::Bookmark bookmark)
{
    m_bookmarks.push_back(std::move(bookmark));
    emit bookmarksChanged();
}

void SessionNotes::removeBookmark(std::size_t index)
{
    if (index >= m_bookmarks.size())
        return;
    m_bookmarks.erase(m_bookmarks.begin() + static_cast<std::ptrdiff_t>(index));
    emit bookmarkRemoved(static_cast<int>(index));
    emit bookmarksChanged();
}

bool SessionNotes::renameBookmark(std::size_t index, const std::string& name)
{
    const auto first = name.find_first_not_of(" \t\r\n");
    if (index >= m_bookmarks.size() || first == std::string::npos)
        return false;
    const std::string trimmed = name.substr(first, name.find_last_not_of(" \t\r\n") - first + 1);
    if (m_bookmarks[index].name != trimmed) {
        m_bookmarks[index].name = trimmed;
        emit bookmarksChanged();
    }
    return true;
}

session::SuggestionState SessionNotes::suggestionState(const std::string& id) const
{
    const auto it = m_states.find(id);
    return it == m_states.end() ? session::SuggestionState::Open : it->second;
}

void SessionNotes::setSuggestionState(const std::string& id, session::SuggestionState state)
{
    if (suggestionState(id) == state)
        return;
    m_states[id] = state;
    emit suggestionStatesChanged();
}

bool SessionNotes::before(std::uint64_t a, std::uint64_t b) const
{
    return m_signedTimes ? static_cast<std::int64_t>(a) < static_cast<std::int64_t>(b) : a < b;
}

void SessionNotes::sortByTime()
{
    std::stable_sort(m_notes.begin(), m_notes.end(),
                     [this](const session::Annotation& a, const session::Annotation& b) {
                         return before(a.fromCycle, b.fromCycle);
                     });
}

void SessionNotes::replace(std::vector<session::Annotation> notes, std::vector<session::Bookmark> bookmarks,
                           std::map<std::string, session::SuggestionState> states)
{
    m_notes = std::move(notes);
    // In time order, as addNote keeps them: a note's number is the same before and after the session is
    // reopened (the file lists them by id).
    sortByTime();
    m_bookmarks = std::move(bookmarks);
    m_states = std::move(states);
    emit notesChanged();
    emit bookmarksChanged();
    emit suggestionStatesChanged();
}

} // namespace xps::ui
