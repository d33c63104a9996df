#pragma once
// What the window shows before a trace is open: the bundled samples and the recent files, one click each.

#include <QWidget>

class QListWidget;

namespace xps::ui {

class WelcomePage : public QWidget
{
    Q_OBJECT
public:
    explicit WelcomePage(QWidget* parent = nullptr);
    void setRecentFiles(const QStringList& files);
    QListWidget* samples() const { return m_samples; }

    // Where the bundled samples are: next to the installed binary, or in the source tree of a build.
    static QString samplesDirectory();

signals:
    void openRequested(const QString& path);

private:
    QListWidget* m_samples;
    QListWidget* m_recent;
};

} // namespace xps::ui
