#include "views/suggestions_view.h"

#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "session/session_notes.h"
#include "views/event_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace xps::ui {
namespace {

QString gainText(const suggest::Suggestion& s)
{
    if (!s.measured)
        return QObject::tr("measuring…");
    const suggest::Measurement& m = *s.measured;
    if (m.verdict == suggest::Measurement::Verdict::Improves || m.verdict == suggest::Measurement::Verdict::NoGain)
        return QStringLiteral("%1%").arg(m.gainPercent, 0, 'f', 1);
    return QStringLiteral("–");
}

QString metricText(double v, const std::string& unit)
{
    if (unit == "%")
        return QStringLiteral("%1%").arg(v, 0, 'f', 1);
    if (unit == "us")
        return QStringLiteral("%1 µs").arg(v, 0, 'f', 2);
    if (unit == "bytes")
        return bytesText(static_cast<std::uint64_t>(std::max(0.0, v)));
    if (v != std::floor(v))
        return QString::number(v, 'f', 2);
    return cyclesText(static_cast<std::uint64_t>(std::max(0.0, v)));
}

// A filled circle: red for high, amber for medium, grey for low (the same in both themes, on any row).
QIcon severityMark(suggest::Severity severity)
{
    const int size = 10;
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(severity == suggest::Severity::High     ? QColor(0xd6, 0x27, 0x28)
                     : severity == suggest::Severity::Medium ? QColor(0xf0, 0xa0, 0x20)
                                                             : QColor(0x9a, 0x9a, 0x9a));
    painter.drawEllipse(QRectF(1, 1, size - 2, size - 2));
    return QIcon(pixmap);
}

} // namespace

SuggestionsView::SuggestionsView(ReplaySession* session, SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_session(session), m_selection(selection),
      m_list(new QTableWidget(0, ColumnCount, this)), m_detail(new QTextBrowser(this)),
      m_compare(new QPushButton(tr("Apply and compare"), this)),
      m_openFixed(new QPushButton(tr("Open fixed run"), this)), m_verdict(new QLabel(this)),
      m_comparison(new QTableWidget(0, 4, this)), m_state(new QComboBox(this)),
      m_showDismissed(new QCheckBox(this))
{
    setObjectName(QStringLiteral("suggestions"));
    m_list->setHorizontalHeaderLabels({tr("id"), tr("gain"), tr("suggestion"), tr("verdict"), tr("state")});
    m_list->verticalHeader()->hide();
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_list->horizontalHeader()->setSectionResizeMode(TitleColumn, QHeaderView::Stretch);
    // One line per suggestion, its title elided at the end (the hover text and the detail give all of it):
    // wrapped into a 22 px row it read "Issue the …".
    m_list->setWordWrap(false);
    m_list->setTextElideMode(Qt::ElideRight);
    m_list->verticalHeader()->setDefaultSectionSize(m_list->fontMetrics().height() + 8);
    m_comparison->setHorizontalHeaderLabels({tr("metric"), tr("baseline"), tr("fixed"), tr("delta")});
    m_comparison->verticalHeader()->hide();
    m_comparison->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_comparison->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_comparison->horizontalHeader()->setStretchLastSection(true);
    m_detail->setOpenLinks(false);
    m_verdict->setWordWrap(true);
    m_compare->setEnabled(false);
    m_openFixed->setEnabled(false);
    m_compare->setToolTip(tr("Replay the changed program on the GRM, compare outputs bit for bit and every metric"));
    m_openFixed->setToolTip(tr("Show the fixed run's timeline under the baseline's, on one time axis, with "
                               "what changed per region and bundle"));

    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addWidget(m_detail, 3); // the finding and its measurement; the comparison fills after Apply
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_compare);
    buttons->addWidget(m_openFixed);
    for (session::SuggestionState s : {session::SuggestionState::Open, session::SuggestionState::Applied, session::SuggestionState::Dismissed})
        m_state->addItem(QString::fromUtf8(session::suggestionStateName(s).data()), static_cast<int>(s));
    m_state->setToolTip(tr("What the review decided: open, applied or dismissed (saved with the session, shown in reports)"));
    m_state->setEnabled(false);
    buttons->addWidget(m_state);
    m_showDismissed->setToolTip(tr("Show the dismissed suggestions, greyed, below the others"));
    m_showDismissed->hide(); // until one is dismissed
    buttons->addWidget(m_showDismissed);
    buttons->addStretch(1);
    lowerLayout->addLayout(buttons);
    // Under the buttons, the dock's whole width: beside them it wrapped into a column four lines high.
    lowerLayout->addWidget(m_verdict);
    lowerLayout->addWidget(m_comparison, 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_list);
    split->addWidget(lower);
    // The ranking is what people scan: it gets half the height, not the few rows it asked for.
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({500, 500});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);

    connect(session, &ReplaySession::opened, this, [this] {
        m_comparisons.clear();
        fill();
    });
    connect(m_showDismissed, &QCheckBox::toggled, this, &SuggestionsView::fill);
    connect(session, &ReplaySession::analysesReady, this, &SuggestionsView::fill);
    connect(session, &ReplaySession::analysesCancelled, this, &SuggestionsView::fill);
    connect(session, &ReplaySession::suggestionsMeasured, this, &SuggestionsView::fill);
    connect(session, &ReplaySession::comparisonReady, this, &SuggestionsView::showComparison);
    connect(session, &ReplaySession::comparisonProgress, this, [this](int, const QString& text) {
        m_verdict->setText(text);
        m_comparison->setRowCount(0);
    });
    connect(m_list, &QTableWidget::itemSelectionChanged, this, &SuggestionsView::onCurrentChanged);
    connect(m_list, &QTableWidget::cellClicked, this, [this](int row) { showEvidence(indexOfRow(row)); });
    connect(m_compare, &QPushButton::clicked, this, [this] {
        if (currentIndex() >= 0)
            m_session->compareSuggestion(currentIndex());
    });
    connect(m_openFixed, &QPushButton::clicked, this, [this] {
        if (currentIndex() >= 0)
            emit openFixedRun(currentIndex());
    });
}

int SuggestionsView::indexOfRow(int row) const
{
    const Run* run = m_session->run();
    if (!run || row < 0 || static_cast<std::size_t>(row) >= m_rowIndex.size())
        return -1;
    const int index = m_rowIndex[static_cast<std::size_t>(row)];
    return static_cast<std::size_t>(index) < run->suggestions.size() ? index : -1;
}

int SuggestionsView::rowOfIndex(int index) const
{
    const auto it = std::find(m_rowIndex.begin(), m_rowIndex.end(), index);
    return it == m_rowIndex.end() ? -1 : static_cast<int>(it - m_rowIndex.begin());
}

int SuggestionsView::currentIndex() const
{
    return indexOfRow(m_list->currentRow());
}

void SuggestionsView::fill()
{
    const Run* run = m_session->run();
    const int keep = currentIndex(); // stays selected if it is still listed
    m_rowIndex.clear();
    m_list->setRowCount(0);
    m_detail->clear();
    m_comparison->setRowCount(0);
    m_verdict->clear();
    m_compare->setEnabled(false);
    m_openFixed->setEnabled(false);
    if (!run || !m_session->analysesAvailable()) {
        m_detail->setHtml(
            m_session->analysesWereCancelled()
                ? QStringLiteral("<i>%1</i>").arg(ReplaySession::analysesCancelledText().toHtmlEscaped())
                : tr("<i>Suggestions appear when the replay has been analysed.</i>"));
        return;
    }
    if (run->suggestions.empty()) {
        m_detail->setHtml(run->result.status == sim::ReplayResult::Status::Completed
                              ? tr("<i>No finding with a change xpushark can make and measure.</i>")
                              : tr("<i>Suggestions need a complete replay: replay again without cancelling.</i>"));
        return;
    }
    // The ranking without the dismissed ones; those after it, greyed, when asked for.
    std::vector<int> dismissed;
    for (std::size_t i = 0; i < run->suggestions.size(); ++i) {
        const bool isDismissed = m_notes && m_notes->suggestionState(run->suggestions[i].id) ==
                                                session::SuggestionState::Dismissed;
        (isDismissed ? dismissed : m_rowIndex).push_back(static_cast<int>(i));
    }
    m_showDismissed->setText(tr("show dismissed (%1)").arg(dismissed.size()));
    m_showDismissed->setVisible(!dismissed.empty());
    if (m_showDismissed->isChecked())
        m_rowIndex.insert(m_rowIndex.end(), dismissed.begin(), dismissed.end());
    m_list->setRowCount(static_cast<int>(m_rowIndex.size()));
    for (std::size_t row = 0; row < m_rowIndex.size(); ++row) {
        const suggest::Suggestion& s = run->suggestions[static_cast<std::size_t>(m_rowIndex[row])];
        const int r = static_cast<int>(row);
        const QString severity = QString::fromUtf8(suggest::severityName(s.severity).data());
        auto* id = new QTableWidgetItem(severityMark(s.severity), QString::fromStdString(s.id));
        id->setToolTip(tr("severity: %1").arg(severity));
        m_list->setItem(r, IdColumn, id);
        auto* gain = new QTableWidgetItem(gainText(s));
        gain->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_list->setItem(r, GainColumn, gain);
        // One word a verdict in the list, so the suggestion column keeps its room in a narrow dock ("rejected:
        // outputs differ" took a third of it at 1366 x 768); the hover text and the detail say all of it.
        const QString verdict =
            s.measured ? QString::fromUtf8(suggest::verdictName(s.measured->verdict).data()) : QString();
        auto* verdictItem = new QTableWidgetItem(verdict.section(QLatin1Char(':'), 0, 0));
        verdictItem->setToolTip(verdict);
        m_list->setItem(r, VerdictColumn, verdictItem);
        const QString title = QString::fromStdString(s.title); // a what-if's says "What if …"
        auto* titleItem = new QTableWidgetItem(title);
        titleItem->setToolTip(
            QStringLiteral("<b>%1</b> (%2)<br>%3")
                .arg(title.toHtmlEscaped(), severity, QString::fromStdString(s.explanation).toHtmlEscaped()));
        m_list->setItem(r, TitleColumn, titleItem);
    }
    showStates();
    if (const int row = rowOfIndex(keep); row >= 0)
        m_list->selectRow(row);
    else if (m_rowIndex.empty() && !dismissed.empty())
        m_detail->setHtml(tr("<i>Every suggestion was dismissed: “show dismissed” lists them.</i>"));
    else
        m_detail->setHtml(
            tr("<i>Select a suggestion: its finding, evidence and measured effect show here.</i>"));
}

void SuggestionsView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) // presentation mode: rows as tall as the larger text
        m_list->verticalHeader()->setDefaultSectionSize(m_list->fontMetrics().height() + 8);
}

void SuggestionsView::setNotes(SessionNotes* notes)
{
    m_notes = notes;
    connect(notes, &SessionNotes::suggestionStatesChanged, this, &SuggestionsView::showStates);
    connect(m_state, &QComboBox::activated, this, &SuggestionsView::onStateChosen);
    fill();
}

void SuggestionsView::onStateChosen()
{
    const int index = currentIndex();
    if (index < 0 || !m_notes)
        return;
    const auto state = static_cast<session::SuggestionState>(m_state->currentData().toInt());
    m_notes->setSuggestionState(m_session->run()->suggestions[static_cast<std::size_t>(index)].id, state);
    if (state == session::SuggestionState::Dismissed) {
        fill(); // it leaves the ranking (or moves to the greyed rows at the bottom)
        if (const int row = rowOfIndex(index); row >= 0)
            m_list->selectRow(row);
    } else if (state == session::SuggestionState::Applied) {
        onCurrentChanged(); // its fixed run
    }
}

void SuggestionsView::showStates()
{
    const Run* run = m_session->run();
    if (!run || !m_notes || static_cast<std::size_t>(m_list->rowCount()) != m_rowIndex.size())
        return;
    const QColor dim = palette().color(QPalette::Disabled, QPalette::Text);
    for (int r = 0; r < m_list->rowCount(); ++r) {
        const session::SuggestionState state = m_notes->suggestionState(
            run->suggestions[static_cast<std::size_t>(m_rowIndex[static_cast<std::size_t>(r)])].id);
        m_list->setItem(r, StateColumn,
                        new QTableWidgetItem(QString::fromUtf8(session::suggestionStateName(state).data())));
        for (int c = 0; c < m_list->columnCount(); ++c)
            if (QTableWidgetItem* item = m_list->item(r, c))
                item->setForeground(state == session::SuggestionState::Dismissed ? QBrush(dim) : QBrush());
    }
    if (const int index = currentIndex(); index >= 0)
        m_state->setCurrentIndex(m_state->findData(static_cast<int>(m_notes->suggestionState(run->suggestions[static_cast<std::size_t>(index)].id))));
}

void SuggestionsView::onCurrentChanged()
{
    const int index = currentIndex();
    m_compare->setEnabled(index >= 0 && !m_session->isBusy());
    m_openFixed->setEnabled(false); // until this suggestion's comparison is shown
    m_state->setEnabled(index >= 0 && m_notes);
    if (index >= 0 && m_notes)
        m_state->setCurrentIndex(m_state->findData(
            static_cast<int>(m_notes->suggestionState(m_session->run()->suggestions[static_cast<std::size_t>(index)].id))));
    if (index < 0)
        return;
    // An applied suggestion leads to its fixed run: the comparison, replayed the first time only.
    m_comparison->setRowCount(0);
    m_verdict->clear();
    if (const auto kept = m_comparisons.find(index); kept != m_comparisons.end())
        showComparison(index, kept->second);
    else if (m_notes &&
             m_notes->suggestionState(m_session->run()->suggestions[static_cast<std::size_t>(index)].id) ==
                 session::SuggestionState::Applied &&
             !m_session->isBusy())
        m_session->compareSuggestion(index);
    const suggest::Suggestion& s = m_session->run()->suggestions[static_cast<std::size_t>(index)];
    QString html =
        QStringLiteral("<h3>%1 · %2</h3><p><b>Severity:</b> %3%4</p><p>%5</p><p><b>Change:</b> %6</p>")
            .arg(QString::fromStdString(s.id), QString::fromStdString(s.title).toHtmlEscaped(),
                 QString::fromUtf8(suggest::severityName(s.severity).data()),
                 s.whatIf ? tr(" (a what-if: a change to the machine, not the program)") : QString(),
                 QString::fromStdString(s.explanation).toHtmlEscaped(),
                 QString::fromStdString(s.change.describe()).toHtmlEscaped());
    if (s.measured) {
        const suggest::Measurement& m = *s.measured;
        html += tr("<p><b>Measured:</b> %1 → %2 cycles (%3%): %4%5</p>")
                    .arg(cyclesText(m.baselineCycles), cyclesText(m.newCycles))
                    .arg(m.gainPercent, 0, 'f', 2)
                    .arg(QString::fromUtf8(suggest::verdictName(m.verdict).data()),
                         m.detail.empty() ? QString() : QStringLiteral(" — ") + QString::fromStdString(m.detail).toHtmlEscaped());
    }
    const suggest::Evidence& e = s.evidence;
    html += tr("<p><b>Evidence:</b> cycles %1 – %2; %3 pc(s), %4 DMA(s). Click the row to show it in every view.</p>")
                .arg(cyclesText(e.fromCycle), cyclesText(e.toCycle))
                .arg(e.pcs.size())
                .arg(e.dmas.size());
    m_detail->setHtml(html);
}

void SuggestionsView::showEvidence(int index)
{
    const Run* run = m_session->run();
    if (!run || index < 0 || static_cast<std::size_t>(index) >= run->suggestions.size())
        return;
    if (const int row = rowOfIndex(index); row >= 0 && m_list->currentRow() != row)
        m_list->selectRow(row); // shows its explanation too
    const suggest::Suggestion& s = run->suggestions[static_cast<std::size_t>(index)];
    Selection selection;
    selection.origin = tr("suggestion %1").arg(QString::fromStdString(s.id));
    selection.pcs = s.evidence.pcs;
    selection.dmas = s.evidence.dmas;
    if (!s.evidence.dmas.empty())
        selection.focus = analysis::NodeRef{analysis::NodeRef::Kind::Dma, s.evidence.dmas.front()};
    m_selection->select(std::move(selection));
    if (s.evidence.toCycle > s.evidence.fromCycle)
        m_selection->setTimeRange(s.evidence.fromCycle, s.evidence.toCycle);
}

void SuggestionsView::showComparison(int index, const sim::RunComparison& comparison)
{
    if (comparison.measurement.verdict != suggest::Measurement::Verdict::Cancelled)
        m_comparisons[index] = comparison;
    if (index != currentIndex())
        return;
    const suggest::Measurement& m = comparison.measurement;
    using V = suggest::Measurement::Verdict;
    // A run that completed with the same outputs can be shown beside the baseline.
    m_openFixed->setEnabled((m.verdict == V::Improves || m.verdict == V::NoGain) && !comparison.rows.empty());
    const QString verdict = QString::fromUtf8(suggest::verdictName(m.verdict).data());
    if (m.verdict == V::Improves || m.verdict == V::NoGain)
        m_verdict->setText(tr("<b>%1</b>: %2 → %3 cycles (%4%); outputs bit-identical")
                               .arg(verdict, cyclesText(m.baselineCycles), cyclesText(m.newCycles))
                               .arg(m.gainPercent, 0, 'f', 2));
    else
        m_verdict->setText(tr("<b>%1</b>: %2").arg(verdict, QString::fromStdString(m.detail).toHtmlEscaped()));
    m_comparison->setRowCount(static_cast<int>(comparison.rows.size()));
    for (std::size_t i = 0; i < comparison.rows.size(); ++i) {
        const sim::MetricRow& row = comparison.rows[i];
        const int r = static_cast<int>(i);
        m_comparison->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(row.name)));
        for (int c = 1; c <= 3; ++c) {
            const double v = c == 1 ? row.baseline : c == 2 ? row.changed : row.delta();
            QString text = c == 3 && v > 0 ? QStringLiteral("+") : QString();
            text += c == 3 && v < 0 ? QStringLiteral("−") + metricText(-v, row.unit) : metricText(v, row.unit);
            if (c == 3 && v == 0)
                text = QStringLiteral("0");
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (c == 3 && v != 0) {
                const bool better = (v < 0) == row.lowerIsBetter;
                item->setForeground(better ? QColor(0x00, 0x9E, 0x73) : QColor(0xD5, 0x5E, 0x00));
            }
            m_comparison->setItem(r, c, item);
        }
    }
}

QString SuggestionsView::comparisonVerdict() const
{
    return m_verdict->text();
}

} // namespace xps::ui
