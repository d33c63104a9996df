#pragma once
// The one selection every view follows: a time range (what the timeline, heatmap and DMA lanes show), a
// set of selected pcs and DMAs (what they highlight; the disassembly selects the pcs) and a focus node
// (the bundle event or DMA the dependency graph is centred on). Views write it on a click and react to
// its signals; they never call each other.

#include "analysis/dependencies.h"

#include <QObject>

#include <optional>
#include <utility>
#include <vector>

namespace xps::ui {

struct Selection
{
    std::vector<std::pair<int, std::uint32_t>> pcs; // (chip, pc), sorted
    std::vector<std::uint32_t> dmas;                // DMA ids, sorted
    std::optional<analysis::NodeRef> focus;
    QString origin; // which view made it ("timeline", "suggestion S2", ...), for the status bar
    bool empty() const { return pcs.empty() && dmas.empty() && !focus; }
    bool containsPc(int chip, std::uint32_t pc) const;
    bool containsDma(std::uint32_t id) const;
};

class SelectionModel : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    std::uint64_t from() const { return m_from; }
    std::uint64_t to() const { return m_to; }
    const Selection& selection() const { return m_selection; }

    // Emits timeRangeChanged unless the range is unchanged; to > from. A range a person chose: the views
    // stop following the replay's end.
    void setTimeRange(std::uint64_t from, std::uint64_t to);
    // While following (after a trace opens, until someone picks a range), the views show the whole replay
    // as it grows: this moves the range without ending the following.
    bool following() const { return m_following; }
    void setFollowRange(std::uint64_t from, std::uint64_t to);
    // Sorts and deduplicates, then emits selectionChanged.
    void select(Selection selection);
    void clear(); // both, e.g. when another trace opens; only selectionChanged is emitted

signals:
    void timeRangeChanged(quint64 from, quint64 to);
    void selectionChanged();

private:
    std::uint64_t m_from = 0;
    std::uint64_t m_to = 1;
    Selection m_selection;
    bool m_following = true;
    void setRange(std::uint64_t from, std::uint64_t to);
};

} // namespace xps::ui
