#pragma once
// The panels under the profile timeline. Each reads the document and reacts to its selection; none talks
// to another.
// - ProfileSummaryPanel: per device the time in compute, communication and copies (exposed vs overlapped),
//   the critical path's composition, and the findings; a click on a finding shows its time range and
//   selects its first piece of evidence; what the import skipped or repaired (kind, how many, what, the
//   first place in the file), listed under a toggle.
// - ProfileOpsPanel: the per-operation table, filterable and sortable; a double-click shows the longest
//   instance.
// - ProfileDetailsPanel: the selected slice with its arguments and flows (a click follows a flow).

#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;
class QTextBrowser;
class QToolButton;
class QTreeWidget;

namespace xps::ui {

class ProfileDocument;
class ProfileOpsModel;

class ProfileSummaryPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProfileSummaryPanel(ProfileDocument* document, QWidget* parent = nullptr);
    QTreeWidget* findings() const { return m_findings; }
    QToolButton* repairsToggle() const { return m_repairsToggle; } // hidden when the import repaired nothing
    QTableWidget* repairs() const { return m_repairs; }            // one row per repair, shown by the toggle
    QString text() const;        // what the breakdown says, for tests
    QString findingText() const; // the current finding's explanation

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void refresh();
    void fillRepairs();
    void fitRepairRows();
    void fitWrappedText();
    ProfileDocument* m_document;
    QLabel* m_breakdown;
    QToolButton* m_repairsToggle;
    QTableWidget* m_repairs;
    QLabel* m_caption; // what the findings are: estimates from an import, or from a replay
    QTreeWidget* m_findings;
    QLabel* m_detail; // the current finding in words
};

class ProfileOpsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProfileOpsPanel(ProfileDocument* document, QWidget* parent = nullptr);
    QTableView* table() const { return m_table; }
    QLineEdit* filter() const { return m_filter; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // The numbers at their content's width, the name in the rest but never narrower than a readable
    // minimum (the table scrolls sideways instead of eliding every name to "...").
    void fitColumns();

    ProfileDocument* m_document;
    ProfileOpsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLineEdit* m_filter;
    QTableView* m_table;
};

class ProfileDetailsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProfileDetailsPanel(ProfileDocument* document, QWidget* parent = nullptr);
    QString text() const;
    QTextBrowser* browser() const { return m_browser; }

private:
    ProfileDocument* m_document;
    QTextBrowser* m_browser;
};

} // namespace xps::ui
