#include "widgets/replay_limits_dialog.h"

#include "events/event_store.h"
#include "replayer.h"
#include "theme/theme.h"
#include "util/physical_memory.h"
#include "util/text.h"
#include "views/event_text.h"
#include "widgets/wrapping_label.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace xps::ui {

namespace {

const QString kCyclesKey = QStringLiteral("replay/maxCycles");
const QString kBundlesKey = QStringLiteral("replay/maxBundles");
const QString kMemoryKey = QStringLiteral("replay/maxEventBytes");

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
    const QChar group =
        QLocale().groupSeparator().isEmpty() ? QLatin1Char(',') : QLocale().groupSeparator().front();
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

std::optional<std::uint64_t> ReplayLimitsDialog::parseSize(const QString& text)
{
    QString compact = text;
    compact.remove(QLatin1Char(' '));
    const std::optional<std::uint64_t> bytes = text::parseBytes(compact.toStdString());
    if (!bytes || *bytes == 0)
        return std::nullopt;
    return bytes;
}

sim::ReplayOptions ReplayLimitsDialog::savedLimits()
{
    QSettings settings;
    const auto read = [&](const QString& key, std::uint64_t fallback) {
        bool ok = false;
        const qulonglong v = settings.value(key).toULongLong(&ok);
        return ok ? static_cast<std::uint64_t>(v) : fallback;
    };
    sim::ReplayOptions limits;
    limits.maxCycles = read(kCyclesKey, sim::kDefaultMaxCycles);
    limits.maxBundles = read(kBundlesKey, sim::kDefaultMaxBundles);
    // Not saved: half of this machine's memory, which is another size on another machine.
    limits.maxEventBytes = read(kMemoryKey, sim::defaultMaxEventBytes());
    return limits;
}

void ReplayLimitsDialog::saveLimits(const sim::ReplayOptions& limits)
{
    QSettings settings;
    settings.setValue(kCyclesKey, static_cast<qulonglong>(limits.maxCycles));
    settings.setValue(kBundlesKey, static_cast<qulonglong>(limits.maxBundles));
    if (limits.maxEventBytes == sim::defaultMaxEventBytes())
        settings.remove(kMemoryKey); // the default follows the machine the settings are read on
    else
        settings.setValue(kMemoryKey, static_cast<qulonglong>(limits.maxEventBytes));
}

ReplayLimitsDialog::ReplayLimitsDialog(const sim::ReplayOptions& limits, QWidget* parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("replayLimitsDialog"));
    setWindowTitle(tr("Replay limits"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = wrapping(
        tr("A replay stops at the first limit it reaches and shows what ran. The limits stop a program "
           "that never ends; raise them, or turn them off, for a long run. They apply from the next replay "
           "(Replay > Replay again). A suggestion's what-if keeps its own bound: 4x its baseline's cycles "
           "and bundles."),
        this);
    layout->addWidget(intro);
    m_grid = new QGridLayout;
    layout->addLayout(m_grid);
    m_cycles = addRow(QStringLiteral("cycles"), tr("cycles"), withThousands(sim::kDefaultMaxCycles));
    m_bundles = addRow(QStringLiteral("bundles"), tr("bundles"), withThousands(sim::kDefaultMaxBundles));
    m_memory = addRow(QStringLiteral("memory"), tr("of events"), bytesText(sim::defaultMaxEventBytes()));
    setCycles(limits.maxCycles);
    setBundles(limits.maxBundles);
    setMemory(limits.maxEventBytes);
    m_note = wrapping(QString(), this);
    m_note->setObjectName(QStringLiteral("limitsMemory"));
    layout->addWidget(m_note);
    m_problem = wrapping(QString(), this);
    m_problem->setObjectName(QStringLiteral("limitsProblem"));
    layout->addWidget(m_problem);
    m_buttons = new QDialogButtonBox(
        QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [this] {
        setCycles(sim::kDefaultMaxCycles);
        setBundles(sim::kDefaultMaxBundles);
        setMemory(sim::defaultMaxEventBytes());
        update();
    });
    connect(&Theme::instance(), &Theme::changed, this, &ReplayLimitsDialog::update);
    update();
    // Wide enough for a 2^40-cycle limit and the memory note on two lines.
    resize(std::max(sizeHint().width(), fontMetrics().horizontalAdvance(QLatin1Char('M')) * 44),
           sizeHint().height());
}

ReplayLimitsDialog::Row ReplayLimitsDialog::addRow(const QString& name, const QString& unit,
                                                   const QString& placeholder)
{
    const int r = m_grid->rowCount();
    Row row;
    row.enabled = new QCheckBox(tr("Stop after"), this);
    row.enabled->setObjectName(QStringLiteral("limitOn_") + name);
    row.count = new QLineEdit(this);
    row.count->setObjectName(QStringLiteral("limit_") + name);
    row.count->setAlignment(Qt::AlignRight);
    row.count->setPlaceholderText(placeholder);
    row.count->setMinimumWidth(
        row.count->fontMetrics().horizontalAdvance(QStringLiteral("0,000,000,000,000,000")));
    auto* unitLabel = new QLabel(unit, this);
    m_grid->addWidget(row.enabled, r, 0);
    m_grid->addWidget(row.count, r, 1);
    m_grid->addWidget(unitLabel, r, 2);
    m_grid->setColumnStretch(1, 1);
    connect(row.enabled, &QCheckBox::toggled, this, [this, count = row.count](bool on) {
        count->setEnabled(on);
        update();
    });
    connect(row.count, &QLineEdit::textChanged, this, &ReplayLimitsDialog::update);
    return row;
}

void ReplayLimitsDialog::setRow(Row& row, const QString& text)
{
    const QSignalBlocker blockToggle(row.enabled); // update() runs once, after all rows are set
    const QSignalBlocker blockText(row.count);
    row.enabled->setChecked(!text.isEmpty());
    row.count->setEnabled(!text.isEmpty());
    row.count->setText(text);
}

void ReplayLimitsDialog::setCycles(std::uint64_t value)
{
    setRow(m_cycles, value != 0 ? withThousands(value) : QString());
}

void ReplayLimitsDialog::setBundles(std::uint64_t value)
{
    setRow(m_bundles, value != 0 ? withThousands(value) : QString());
}

void ReplayLimitsDialog::setMemory(std::uint64_t bytes)
{
    // "11.7 GiB" stands for the exact half of the machine's memory until it is edited.
    m_memoryShown = bytes != 0 ? bytesText(bytes) : QString();
    m_memoryExact = bytes;
    setRow(m_memory, m_memoryShown);
}

std::optional<std::uint64_t> ReplayLimitsDialog::memoryBytes() const
{
    const QString text = m_memory.count->text();
    if (m_memoryExact != 0 && text == m_memoryShown)
        return m_memoryExact;
    return parseSize(text);
}

sim::ReplayOptions ReplayLimitsDialog::limits() const
{
    sim::ReplayOptions limits;
    limits.maxCycles = m_cycles.enabled->isChecked() ? parseCount(m_cycles.count->text()).value_or(0) : 0;
    limits.maxBundles = m_bundles.enabled->isChecked() ? parseCount(m_bundles.count->text()).value_or(0) : 0;
    limits.maxEventBytes = m_memory.enabled->isChecked() ? memoryBytes().value_or(0) : 0;
    return limits;
}

void ReplayLimitsDialog::update()
{
    QString problem;
    for (const auto& [row, what] : {std::pair{&m_cycles, tr("cycles")}, std::pair{&m_bundles, tr("bundles")}})
        if (problem.isEmpty() && row->enabled->isChecked() && !parseCount(row->count->text()))
            problem =
                tr("The number of %1 must be a whole number above 0 (or turn its limit off).").arg(what);
    if (problem.isEmpty() && m_memory.enabled->isChecked() && !memoryBytes())
        problem =
            tr("The memory limit must be a size above 0, such as 8G, 512MiB or 1.5GiB (or turn its limit "
               "off).");
    // The critical path's red, in the shade that reads on the theme's background.
    m_problem->setStyleSheet(QStringLiteral("color: %1").arg(Theme::instance().critical().name()));
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
    if (!problem.isEmpty()) {
        m_note->clear(); // the problem says what is wrong; a note on the old numbers would mislead
        m_note->setVisible(false);
        return;
    }

    const sim::ReplayOptions set = limits();
    const std::uint64_t memory = physicalMemoryBytes();
    const QString machine = memory ? tr(" (this machine has %1)").arg(bytesText(memory)) : QString();
    QString note;
    if (set.maxBundles == 0 && set.maxEventBytes == 0) {
        note =
            tr("No bundle or memory limit: a program that never ends fills memory, up to %1 bytes a bundle, "
               "until you stop it%2.")
                .arg(kBytesPerBundleEvent)
                .arg(machine);
    } else if (set.maxBundles == 0) {
        note = tr("No bundle limit: a program that never ends stops when its events take %1, at up to %2 "
                  "bytes a "
                  "bundle%3.")
                   .arg(bytesText(set.maxEventBytes))
                   .arg(kBytesPerBundleEvent)
                   .arg(machine);
    } else {
        const std::uint64_t bytes = set.maxBundles > UINT64_MAX / kBytesPerBundleEvent
                                        ? UINT64_MAX
                                        : set.maxBundles * kBytesPerBundleEvent;
        const bool tooMuch = memory && bytes > memory / 2;
        note = tr("At this limit the bundles' events alone take up to %1%2%3.")
                   .arg(bytesText(bytes), machine, tooMuch ? tr(": more than half of it") : QString());
        if (set.maxEventBytes != 0 && set.maxEventBytes < bytes)
            note += QLatin1Char(' ') +
                    tr("The memory limit (%1) stops a replay before that.").arg(bytesText(set.maxEventBytes));
    }
    if (memory && set.maxEventBytes > memory)
        note +=
            QLatin1Char(' ') + tr("The memory limit is more than this machine has: the system may swap, or "
                                  "stop the explorer, before a replay reaches it.");
    m_note->setText(note);
    m_note->setVisible(true);
}

} // namespace xps::ui
