#include "welcome_page.h"
#include "widgets/wrapping_label.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>

namespace xps::ui {

QString WelcomePage::samplesDirectory()
{
    const QString app = QCoreApplication::applicationDirPath();
    const QStringList candidates = {
        app + QStringLiteral("/../share/xpushark/samples"),
#ifdef XPS_SOURCE_SAMPLES_DIR
        QStringLiteral(XPS_SOURCE_SAMPLES_DIR),
#endif
    };
    for (const QString& dir : candidates)
        if (QFileInfo(dir).isDir())
            return QDir(dir).canonicalPath();
    return {};
}

WelcomePage::WelcomePage(QWidget* parent)
    : QWidget(parent), m_samples(new QListWidget(this)), m_recent(new QListWidget(this))
{
    setObjectName(QStringLiteral("welcome"));
    auto* title =
        new QLabel(tr("<h1>xpushark</h1><p>Replay a recorded accelerator trace on the golden reference "
                      "model and see, bundle by bundle, why it is slow.</p>"
                      "<p>Open a trace with <b>File › Open</b> (Ctrl+O), drop one on this window, or "
                      "start from a sample:</p>"),
                   this);
    // Its minimum is the window's too (the page shares the centre with the timeline): one line, not the
    // six it takes at its narrowest.
    wrapToAnyWidth(title);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(40, 24, 40, 24);
    layout->addWidget(title);
    layout->addWidget(new QLabel(tr("<b>Bundled samples</b>"), this));
    layout->addWidget(m_samples, 1);
    layout->addWidget(new QLabel(tr("<b>Recent files</b>"), this));
    layout->addWidget(m_recent, 1);

    const QDir dir(samplesDirectory());
    for (const QFileInfo& f : dir.entryInfoList({QStringLiteral("*.xtrace.json"), QStringLiteral("*.xasm"),
                                                 QStringLiteral("*.mlir"), QStringLiteral("*.xps")},
                                                QDir::Files, QDir::Name)) {
        auto* item = new QListWidgetItem(f.fileName(), m_samples);
        item->setData(Qt::UserRole, f.absoluteFilePath());
        item->setToolTip(f.absoluteFilePath());
    }
    auto open = [this](QListWidgetItem* item) { emit openRequested(item->data(Qt::UserRole).toString()); };
    connect(m_samples, &QListWidget::itemActivated, this, open);
    connect(m_samples, &QListWidget::itemClicked, this, open);
    connect(m_recent, &QListWidget::itemActivated, this, open);
    connect(m_recent, &QListWidget::itemClicked, this, open);
}

void WelcomePage::setRecentFiles(const QStringList& files)
{
    m_recent->clear();
    for (const QString& f : files) {
        auto* item = new QListWidgetItem(f, m_recent);
        item->setData(Qt::UserRole, f);
    }
    if (files.isEmpty())
        new QListWidgetItem(tr("(none yet)"), m_recent);
}

} // namespace xps::ui
