#pragma once
// The open document as a session: its notes and bookmarks, where it is saved, and saving. A trace opened
// from an .xps file is its own session (its notes, bookmarks and layout load with it); any other trace
// becomes one on File > Save session as. An imported profile is a document too: its session names the
// profile file and opens it (core/session), its notes are pinned to slices. Once a document has a session
// file, note and bookmark changes are saved to it automatically. Saves run on a worker, one at a time,
// atomically.

#include "session/session_notes.h"

#include <QObject>
#include <QThreadPool>
#include <QTimer>

#include <functional>

namespace xps::ui {

class ProfileDocument;
class ReplaySession;

class SessionDocument : public QObject
{
    Q_OBJECT
public:
    SessionDocument(ReplaySession* replay, ProfileDocument* profile, QObject* parent = nullptr);
    ~SessionDocument() override; // waits for a save in progress

    SessionNotes* notes() const { return m_notes; }
    QString path() const { return m_path; } // empty until the document has a session file
    // The document is an imported profile (times in its nanoseconds, notes pinned to slices), not a replay.
    bool isProfile() const { return m_profileDocument; }

    // Reads the session on an imported profile at `path` (its tables only) and holds it until its profile
    // has loaded; returns the profile's path to open, or an empty string and `error`.
    QString expectProfileSession(const QString& path, QString* error);
    QByteArray windowLayout() const { return m_layout; } // as the opened session saved it
    // What to save as the window layout (the main window's dock state).
    void setLayoutProvider(std::function<QByteArray()> provider) { m_layoutProvider = std::move(provider); }

    // Saves to `path` (empty: the current session file) in the background; emits saved(). The document
    // takes `path` as its session file once the save succeeds.
    void save(const QString& path = {});
    bool isSaving() const { return m_saving > 0; }

signals:
    void loaded(); // an opened session's notes, bookmarks and layout are in place
    void saved(const QString& path, const QString& error); // on success the document's session file is `path`
    void loadFailed(const QString& message); // the trace opened, its session tables could not be read
    // A reopened profile session's notes pinned to slices the profile no longer has (they stay at their
    // saved times): after loaded().
    void pinnedNotesNotFound(int count);

private:
    void onOpened();
    void onProfileLoaded();
    void saveProfileSession(const QString& path);
    void startSave(const QString& path, std::function<QString()> write);

    ReplaySession* m_replay;
    ProfileDocument* m_profile;
    SessionNotes* m_notes;
    bool m_profileDocument = false;
    QString m_pendingPath;            // a profile session waiting for its profile
    session::Session m_pendingTables; // (its tables; no trace)
    QString m_path;
    QByteArray m_layout;
    std::function<QByteArray()> m_layoutProvider;
    QTimer m_autosave;
    int m_saving = 0;
    std::uint64_t m_document = 0; // counts opened documents: a save of an earlier one does not claim this one
    QThreadPool m_pool; // declared last: destroyed (and waited for) first
};

} // namespace xps::ui
