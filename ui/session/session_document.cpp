#include "session/session_document.h"

#include "imported/profile_document.h"
#include "report/analysis_json.h"
#include "session/replay_session.h"
#include "trace/trace_container.h"

#include <QFileInfo>

namespace xps::ui {

SessionDocument::SessionDocument(ReplaySession* replay, ProfileDocument* profile, QObject* parent)
    : QObject(parent), m_replay(replay), m_profile(profile), m_notes(new SessionNotes(this))
{
    m_pool.setMaxThreadCount(1); // saves of one file never overlap
    m_autosave.setSingleShot(true);
    m_autosave.setInterval(800); // a burst of edits is one save
    connect(&m_autosave, &QTimer::timeout, this, [this] {
        if (!m_path.isEmpty())
            save();
    });
    const auto changed = [this] {
        if (!m_path.isEmpty())
            m_autosave.start();
    };
    connect(m_notes, &SessionNotes::notesChanged, this, changed);
    connect(m_notes, &SessionNotes::bookmarksChanged, this, changed);
    connect(m_notes, &SessionNotes::suggestionStatesChanged, this, changed);
    connect(replay, &ReplaySession::opened, this, &SessionDocument::onOpened);
    connect(profile, &ProfileDocument::loaded, this, &SessionDocument::onProfileLoaded);
    connect(profile, &ProfileDocument::failed, this, [this] { m_pendingPath.clear(); });
    connect(replay, &ReplaySession::replayEnded, this, [this] {
        // Event-anchored notes move to where their event is in this replay.
        if (const Run* run = m_replay->run()) {
            const bool pending = m_autosave.isActive();
            m_notes->relocate(run->store);
            if (!pending)
                m_autosave.stop(); // moving notes with their events is not an edit to save
        }
    });
}

SessionDocument::~SessionDocument()
{
    m_pool.waitForDone();
}

void SessionDocument::onOpened()
{
    m_autosave.stop();
    ++m_document;
    m_profileDocument = false;
    m_pendingPath.clear();
    const Run* run = m_replay->run();
    m_path.clear();
    m_layout.clear();
    std::vector<session::Annotation> notes;
    std::vector<session::Bookmark> bookmarks;
    std::map<std::string, session::SuggestionState> states;
    if (run && trace::looksLikeContainer(run->path.toStdString())) {
        // The session tables are a few kilobytes; the trace itself was loaded on the worker.
        Result<session::Session> s = session::readSessionTables(run->path.toStdString());
        if (s) {
            notes = std::move(s->annotations);
            bookmarks = std::move(s->bookmarks);
            for (const session::SuggestionRecord& r : s->suggestions)
                states[r.id] = r.state;
            m_layout = QByteArray::fromBase64(QByteArray::fromStdString(s->windowLayout));
            m_path = run->path;
        } else {
            emit loadFailed(tr("The session's notes, bookmarks and layout could not be read; the trace is open without them.\n\n%1")
                                .arg(QString::fromStdString(s.error().toString())));
        }
    }
    m_notes->setSignedTimes(false);
    m_notes->replace(std::move(notes), std::move(bookmarks), std::move(states));
    m_autosave.stop(); // loading is not a change to save
    emit loaded();
}

QString SessionDocument::expectProfileSession(const QString& path, QString* error)
{
    Result<session::Session> tables = session::readSessionTables(path.toStdString());
    if (!tables || tables->profileSource.empty()) {
        *error = tables ? tr("%1 is not a session on an imported profile.").arg(path)
                        : QString::fromStdString(tables.error().toString());
        return {};
    }
    const std::string source = session::resolveProfileSource(path.toStdString(), tables->profileSource);
    if (!QFileInfo::exists(QString::fromStdString(source))) {
        *error = tr("%1: the profile this session was made on, %2, is not there any more (nor beside the "
                    "session). Put it back, or beside the session, and open the session again.")
                     .arg(path, QString::fromStdString(tables->profileSource));
        return {};
    }
    m_pendingPath = path;
    m_pendingTables = std::move(tables).value();
    m_pendingTables.profileSource = source;
    return QString::fromStdString(source);
}

void SessionDocument::onProfileLoaded()
{
    const ProfileRun* run = m_profile->run();
    if (!run || !run->fromFile)
        return; // a replay seen as a profile: the document is still the replay
    m_autosave.stop();
    ++m_document;
    m_profileDocument = true;
    m_path.clear();
    m_layout.clear();
    std::vector<session::Annotation> notes;
    std::vector<session::Bookmark> bookmarks;
    std::size_t notFound = 0;
    if (!m_pendingPath.isEmpty() && run->path.toStdString() == m_pendingTables.profileSource) {
        notes = std::move(m_pendingTables.annotations);
        bookmarks = std::move(m_pendingTables.bookmarks);
        // Pinned notes move onto their slices, wherever this import put them.
        notFound = session::relocate(notes, run->profile);
        m_path = m_pendingPath;
    }
    m_pendingPath.clear();
    m_pendingTables = {};
    m_notes->setSignedTimes(true);
    m_notes->replace(std::move(notes), std::move(bookmarks));
    m_autosave.stop(); // loading is not a change to save
    emit loaded();
    if (notFound > 0)
        emit pinnedNotesNotFound(static_cast<int>(notFound));
}

void SessionDocument::save(const QString& target)
{
    const QString path = target.isEmpty() ? m_path : target;
    if (path.isEmpty())
        return;
    if (m_profileDocument) {
        saveProfileSession(path);
        return;
    }
    const std::shared_ptr<const Run> run = m_replay->runHandle();
    if (!run)
        return;
    session::Session data;
    data.source = run->path.toStdString();
    data.annotations = m_notes->notes();
    data.bookmarks = m_notes->bookmarks();
    if (m_layoutProvider)
        data.windowLayout = m_layoutProvider().toBase64().toStdString();
    const bool analysed = m_replay->analysesAvailable();
    startSave(path, [run, data = std::move(data), states = m_notes->suggestionStates(), path,
                     analysed]() mutable {
        if (analysed) {
            data.replaySummary = report::analysisToJson(*run->view, run->analyses, run->suggestions)["summary"];
            for (const suggest::Suggestion& s : run->suggestions) {
                const auto state = states.find(s.id);
                data.suggestions.push_back({s.id, s.kind, s.title, state == states.end() ? session::SuggestionState::Open : state->second,
                                            s.measured ? report::suggestionToJson(s) : nlohmann::json()});
            }
        }
        const Status written = session::writeSession(*run->trace, data, path.toStdString());
        return written ? QString() : QString::fromStdString(written.error().toString());
    });
}

void SessionDocument::saveProfileSession(const QString& path)
{
    const ProfileRun* run = m_profile->run();
    if (!run || !run->fromFile)
        return;
    session::Session data;
    data.profileSource = QFileInfo(run->path).absoluteFilePath().toStdString();
    data.annotations = m_notes->notes();
    data.bookmarks = m_notes->bookmarks();
    // No window layout: the profile explorer has no docks, and the replay's hidden meanwhile are not its own.
    startSave(path, [data = std::move(data), path] {
        const Status written = session::writeProfileSession(data, path.toStdString());
        return written ? QString() : QString::fromStdString(written.error().toString());
    });
}

void SessionDocument::startSave(const QString& path, std::function<QString()> write)
{
    ++m_saving;
    m_pool.start([this, path, write = std::move(write), document = m_document] {
        const QString error = write();
        QMetaObject::invokeMethod(this, [this, path, error, document] {
            --m_saving;
            if (error.isEmpty() && document == m_document)
                m_path = path; // from now on, edits save here
            emit saved(path, error);
        }, Qt::QueuedConnection);
    });
}

} // namespace xps::ui
