#pragma once
// The explorer's window: the timeline in the centre, the other views in docks whose layout is saved,
// menus and a toolbar for files, replay and views, and a status bar with the replay's progress and a
// cancel button. It owns the session and the selection model and wires them to the views; the views
// never talk to each other.

#include <QMainWindow>
#include <QPointer>
#include <QStringList>
#include <QThreadPool>

#include <functional>
#include <memory>
#include <string>

class QActionGroup;
class QLabel;
class QProgressBar;
class QStackedWidget;
class QToolButton;

namespace xps::ui {

class BookmarksView;
class ComparisonWindow;
class DisassemblyView;
class ProfileDocument;
class ProfileExplorer;
class ReplaySession;
struct Run;
class SelectionModel;
class SessionDocument;
class SuggestionsView;
class SummaryView;
class TimelineView;
class WelcomePage;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    // `restoreLayout`: restore the saved geometry and dock layout (off for screenshots and tests, which
    // want the default layout whatever the user did).
    explicit MainWindow(bool restoreLayout = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    // An xpushark trace is replayed; a Chrome / Perfetto / PyTorch profiler JSON trace is imported and shown
    // in the profile explorer (the replay's docks are hidden meanwhile).
    // `modelDtype`: the element type a model (.mlir) runs as ("bf16", "f16", "f32"; empty: as exported).
    void openFile(const QString& path, const QString& modelDtype = {});
    ReplaySession* session() const { return m_session; }
    ProfileDocument* profileDocument() const { return m_profile; }
    ProfileExplorer* profileExplorer() const { return m_profileExplorer; } // nullptr until a profile is shown
    SelectionModel* selection() const { return m_selection; }
    TimelineView* timeline() const { return m_timeline; }
    BookmarksView* bookmarks() const { return m_bookmarks; }
    DisassemblyView* disassembly() const { return m_disassembly; }
    SummaryView* summary() const { return m_summary; }
    SuggestionsView* suggestions() const { return m_suggestions; }
    WelcomePage* welcome() const { return m_welcome; }
    // A view by the name --screenshot --view takes: timeline, summary, disassembly, suggestions, heatmap,
    // dma, graph, notes, bookmarks, recorded, profile; nullptr if unknown.
    QWidget* viewByName(const QString& name) const;
    static QStringList viewNames();
    // Shows the view alone at `size` (its dock floats), for a screenshot of one view.
    void isolateView(const QString& name, QSize size);
    QString statusText() const;
    // File > Export report: to `path` (format by its extension), or to a file the user picks when empty.
    // Written in the background; the status bar says when it is done.
    void exportReport(const QString& path = {});
    // File > Export Chrome/Perfetto trace of what the window shows (an imported profile, or the replay); asks
    // for the file's name unless `path` gives it.
    void exportChromeTrace(const QString& path = {});
    SessionDocument* document() const { return m_document; }
    // Bookmarks: add the current view under `name`; show bookmark `index` (wraps); step to the next or
    // previous one (PageDown / PageUp).
    void addBookmark(const QString& name);
    void showBookmark(int index);
    void stepBookmark(int delta);
    // View > Replay as a profile: the replay (once analysed) in the profile explorer, through the profile
    // model (analysis/replay_profile.h): per chip compute, DMA and ICI time, the operations table, the
    // critical path through DMA and wait dependencies. Converted on the profile document's worker; the
    // replay's own views come back with showReplayViews or the same action.
    void showReplayAsProfile();
    QAction* replayAsProfileAction() const { return m_profileViewAction; }

    // Suggestion `index`'s fixed run beside the replay, in a window of its own (#24; the suggestions view's
    // "Open fixed run"); replaces the comparison shown before. Null until one is opened, and once closed.
    void openFixedRun(int index);
    ComparisonWindow* comparisonWindow() const;
    // File > Compare with…: the replay (once analysed) or the profile shown beside the file at `path` (asked
    // for when empty), in the same window as a fixed run (compare/comparison_window.h): two traces as two
    // replays; anything beside a profile as two profiles (an imported profile beside another or beside a
    // trace's replay, and the replay, seen as its profile, beside a profile).
    void compareWith(const QString& path = {});

    // Presentation mode: full screen, larger text, for a shared screen.
    void setPresentationMode(bool on);
    bool presentationMode() const { return m_presenting; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void createActions();
    // How a dock holds its view: as it is; in a scroll area at the view's preferred height (a long summary);
    // or filling the dock and scrolling only below the view's minimum (so a dock tabbed with others never
    // holds the window to that minimum).
    enum class DockFit { View, Scrolled, FilledOrScrolled };
    QDockWidget* addDock(QWidget* view, const QString& title, Qt::DockWidgetArea area,
                         DockFit fit = DockFit::View);
    void onStageChanged();
    void onOpenFailed(const QString& message);
    void addRecentFile(const QString& path);
    void updateRecentMenu();
    void showIsaReference();
    // The open run if its analyses are ready, else nullptr after telling the person why (for the exports).
    const Run* analysedRunOrSayWhyNot();
    void exportAnalysisJson();
    // Runs `write` (which returns an error message, empty on success) on a pool thread: exports of a large
    // replay take seconds. The result shows in the status bar, an error in a dialog.
    // `finished`, if given, runs on the GUI thread when the write is done and says whether a stop was asked
    // for.
    void exportInBackground(const QString& path, std::function<std::string()> write,
                            std::function<bool()> finished = {});
    void saveSessionAs();
    // A warning the person must see, without blocking the event loop (background saves report here).
    void showProblem(const QString& name, const QString& title, const QString& message);
    void updateBookmarkMenu();
    void ensureProfileExplorer();
    // The profile document's loads in the status bar, its results on the profile page, its selection (of a
    // replay seen as a profile) in the replay's views.
    void connectProfileDocument();
    // If `path` is a session on an imported profile: opens its profile (its notes and bookmarks follow once
    // it is loaded), or says why not; true either way. False for anything else.
    bool openProfileSession(const QString& path);
    // The profile explorer is shown with a profile imported from a file (not a replay seen as one).
    bool showsImportedProfile() const;
    bool showsReplaysProfile() const; // the profile page, showing the replay seen as a profile
    // Which page the centre shows: the replay's timeline with its docks, or the profile explorer.
    void showReplayViews(bool replay);
    // The first layout of a window with none saved: the main views get the space (main_window_layout.cpp).
    void fitDefaultLayout();
    // Widens (or narrows) the left docks with the text: presentation mode's 1.4x font elided their tabs.
    void scaleSideDocks(double factor);
    void fitTimelineForPresentation();
    // The Recorded timing tab, shown only while the open trace carries timing recorded on the chip.
    QDockWidget* addRecordedTimingDock();
    void keepDockTabsWhole();
    // The profile document's profile beside `other` (a profile, or a trace seen as its replay's profile).
    void openProfileComparison(const QString& other);
    void showComparison(ComparisonWindow* window); // replaces the one shown

    ReplaySession* m_session;
    SelectionModel* m_selection; // the one selection, both pages'
    ProfileDocument* m_profile;
    ProfileExplorer* m_profileExplorer;
    QList<QDockWidget*> m_hiddenDocks; // replay docks hidden while a profile is shown
    QStringList m_recentFiles;         // the File menu's; saved by m_settingsWriter
    QThreadPool m_settingsWriter;      // one thread: settings written off the GUI thread, in order
    QStackedWidget* m_centre;
    WelcomePage* m_welcome;
    TimelineView* m_timeline;
    DisassemblyView* m_disassembly;
    SummaryView* m_summary;
    SuggestionsView* m_suggestions;
    QList<QWidget*> m_views;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_recentMenu = nullptr;
    QActionGroup* m_modeGroup = nullptr;
    QAction* m_stopAction = nullptr;
    QAction* m_replayAction = nullptr;
    QAction* m_profileViewAction = nullptr;
    std::weak_ptr<const Run> m_projectedRun; // the replay the profile document holds, if any
    bool m_converting = false;               // the profile document is converting a replay
    QLabel* m_stageLabel;
    QProgressBar* m_progress;
    QToolButton* m_cancel;
    SessionDocument* m_document;
    QMenu* m_bookmarkMenu = nullptr;
    BookmarksView* m_bookmarks = nullptr;
    int m_currentBookmark = -1; // the bookmark last added or shown: the one the menu renames or deletes
    bool m_presenting = false;
    bool m_layoutSettled = false;     // restored from the settings or a session, or fitted once
    int m_bottomBeforePresenting = 0; // the bottom docks' height, while presentation mode has lent a part
    QFont m_normalFont;
    QPointer<ComparisonWindow> m_comparisonWindow;
    QString m_comparisonPendingOnProfile; // compared once the replay's profile is made
};

} // namespace xps::ui
