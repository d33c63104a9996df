#include "widgets/replay_limits_dialog.h"

#include "events/event_store.h"
#include "replayer.h"
#include "theme/theme.h"
#include "util/physical_memory.h"
#include "util/text.h"
#include "widgets/wrapping_label.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace xps::ui {

namespace {

const QString kCyclesKey = QStringLiteral("replay/maxCycles");
const QString kBundlesKey = QStringLiteral("replay/maxBundles");

// What each issued bundle's event takes in the store at most (19 bytes: 11, and 8 more for a bundle that
// stalled); VMEM accesses, DMAs and waits come on top.
constexpr std::uint64_t kBytesPerBundleEvent =
    sizeof(events::BundleChunk) / events::kChunkEvents + sizeof(events::StallDetail);

QLabel* wrapping(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    wrapToAnyWidth(label);
    return label;
}

QString withThousands(std::uint64_t n)
{
    return QString::fromStdString(text::withThousands(n));
}

} // namespace

std::optional<std::uint64_t> ReplayLimitsDialog::parseCount(const QString& text)
{
    const QChar group = QLocale().groupSeparator().isEmpty() ? QLatin1Char(',') : QLocale().groupSeparator().front();
    std::uint64_t value = 0;
    bool digits = false;
    for (const QChar c : text.trimmed()) {
        if (c == QLatin1Char(',') || c == QLatin1Char('_') || c == QLatin1Char(' ') || c == group)
            continue;
        if (c < QLatin1Char('0') || c > QLatin1Char('9'))
            return std::nullopt;
        const auto digit = static_cast<std::uint64_t>(c.unicode() - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return std::nullopt; // more than 64 bits
        value = value * 10 + digit;
        digits = true;
    }
    if (!digits || value == 0)
        return std::nullopt;
    return value;
}

std::pair<std::uint64_t, std::uint64_t> ReplayLimitsDialog::savedLimits()
{
    QSettings settings;
    const auto read = [&](const QString& key, std::uint64_t fallback) {
        bool ok = false;
        const qulonglong v = settings.value(key).toULongLong(&ok);
        return ok ? static_cast<std::uint64_t>(v) : fallback;
    };
    return {read(kCyclesKey, sim::kDefaultMaxCycles), read(kBundlesKey, sim::kDefaultMaxBundles)};
}

void ReplayLimitsDialog::saveLimits(std::uint64_t maxCycles, std::uint64_t maxBundles)
{
    QSettings settings;
    settings.setValue(kCyclesKey, static_cast<qulonglong>(maxCycles));
    settings.setValue(kBundlesKey, static_cast<qulonglong>(maxBundles));
}

ReplayLimitsDialog::ReplayLimitsDialog(std::uint64_t maxCycles, std::uint64_t maxBundles, QWidget* parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("replayLimitsDialog"));
    setWindowTitle(tr("Replay limits"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = wrapping(
        tr("A replay stops at the first limit it reaches and shows what ran. The limits stop a program "
           "that never ends; raise them, or turn them off, for a long run. They apply from the next replay "
           "(Replay > Replay again). A suggestion's what-if keeps its own bound: 4x its baseline."),
        this);
    layout->addWidget(intro);
    m_grid = new QGridLayout;
    layout->addLayout(m_grid);
    m_cycles = addRow(tr("cycles"), maxCycles, sim::kDefaultMaxCycles);
    m_bundles = addRow(tr("bundles"), maxBundles, sim::kDefaultMaxBundles);
    m_memory = wrapping(QString(), this);
    m_memory->setObjectName(QStringLiteral("limitsMemory"));
    layout->addWidget(m_memory);
    m_problem = wrapping(QString(), this);
    m_problem->setObjectName(QStringLiteral("limitsProblem"));
    layout->addWidget(m_problem);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel |
                                         QDialogButtonBox::RestoreDefaults,
                                     this);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [this] {
        setRow(m_cycles, sim::kDefaultMaxCycles);
        setRow(m_bundles, sim::kDefaultMaxBundles);
        update();
    });
    connect(&Theme::instance(), &Theme::changed, this, &ReplayLimitsDialog::update);
    update();
    // Wide enough for a 2^40-cycle limit and the memory note on two lines.
    resize(std::max(sizeHint().width(), fontMetrics().horizontalAdvance(QLatin1Char('M')) * 44), sizeHint().height());
}

ReplayLimitsDialog::Row ReplayLimitsDialog::addRow(const QString& what, std::uint64_t value,
                                                   std::uint64_t defaultValue)
{
    const int r = m_grid->rowCount();
    Row row;
    row.enabled = new QCheckBox(tr("Stop after"), this);
    row.enabled->setObjectName(QStringLiteral("limitOn_") + what);
    row.count = new QLineEdit(this);
    row.count->setObjectName(QStringLiteral("limit_") + what);
    row.count->setAlignment(Qt::AlignRight);
    row.count->setPlaceholderText(withThousands(defaultValue));
    row.count->setMinimumWidth(row.count->fontMetrics().horizontalAdvance(QStringLiteral("0,000,000,000,000,000")));
    auto* unit = new QLabel(what, this);
    m_grid->addWidget(row.enabled, r, 0);
    m_grid->addWidget(row.count, r, 1);
    m_grid->addWidget(unit, r, 2);
    m_grid->setColumnStretch(1, 1);
    setRow(row, value);
    connect(row.enabled, &QCheckBox::toggled, this, [this, count = row.count](bool on) {
        count->setEnabled(on);
        update();
    });
    connect(row.count, &QLineEdit::textChanged, this, &ReplayLimitsDialog::update);
    return row;
}

void ReplayLimitsDialog::setRow(Row& row, std::uint64_t value)
{
    row.enabled->setChecked(value != 0);
    row.count->setEnabled(value != 0);
    row.count->setText(value != 0 ? withThousands(value) : QString());
}

std::uint64_t ReplayLimitsDialog::maxCycles() const
{
    return m_cycles.enabled->isChecked() ? parseCount(m_cycles.count->text()).value_or(0) : 0;
}

std::uint64_t ReplayLimitsDialog::maxBundles() const
{
    return m_bundles.enabled->isChecked() ? parseCount(m_bundles.count->text()).value_or(0) : 0;
}

void ReplayLimitsDialog::update()
{
    QString problem;
    for (const auto& [row, what] : {std::pair{&m_cycles, tr("cycles")}, std::pair{&m_bundles, tr("bundles")}})
        if (problem.isEmpty() && row->enabled->isChecked() && !parseCount(row->count->text()))
            problem = tr("The number of %1 must be a whole number above 0 (or turn its limit off).").arg(what);
    // The critical path's red, in the shade that reads on the theme's background.
    m_problem->setStyleSheet(QStringLiteral("color: %1").arg(Theme::instance().critical().name()));
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());

    const std::uint64_t memory = physicalMemoryBytes();
    const QString machine =
        memory ? tr(" (this machine has %1)").arg(QString::fromStdString(text::formatBytes(memory))) : QString();
    const std::uint64_t bundles = maxBundles();
    if (!m_bundles.enabled->isChecked()) {
        m_memory->setText(tr("No bundle limit: a program that never ends fills memory, up to %1 bytes a bundle, "
                             "until you stop it%2.")
                              .arg(kBytesPerBundleEvent)
                              .arg(machine));
    } else if (bundles > 0) {
        const std::uint64_t bytes =
            bundles > UINT64_MAX / kBytesPerBundleEvent ? UINT64_MAX : bundles * kBytesPerBundleEvent;
        const bool tooMuch = memory && bytes > memory / 2;
        m_memory->setText(tr("At this limit the bundles' events alone take up to %1%2%3.")
                              .arg(QString::fromStdString(text::formatBytes(bytes)), machine,
                                   tooMuch ? tr(": more than half of it") : QString()));
    } else {
        m_memory->clear(); // no valid count: the problem above says so
    }
    m_memory->setVisible(!m_memory->text().isEmpty());
}

} // namespace xps::ui
