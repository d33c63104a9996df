#pragma once
// The one selection every view follows, the replay's and the profile explorer's alike: a set
// of selected pcs and DMAs (what the replay's views highlight; the disassembly selects the pcs), a focus
// node (the bundle event or DMA the replay's dependency graph is centred on) and a slice of the profile the
// explorer shows. A slice of a replay seen as a profile carries the replay's DMA and pc with it, and a DMA
// picked in the replay's views is its slice in the profile views (ProfileDocument::selectedSlice), so both
// pages show one selection. Also the replay's visible time range (what its timeline, heatmap and DMA lanes
// show); the profile explorer's is the profile document's, in its nanoseconds. Views write it on a click and
// react to its signals; they never call each other.

#include "analysis/dependencies.h"
#include "profile/profile.h"

#include <QObject>

#include <optional>
#include <utility>
#include <vector>

namespace xps::ui {

struct Selection
{
    std::vector<std::pair<ChipId, std::uint32_t>> pcs; // (chip, pc), sorted
    std::vector<std::uint32_t> dmas;                // DMA ids, sorted
    std::optional<analysis::NodeRef> focus;
    profile::SliceRow slice; // in the profile the explorer shows; invalid: none
    QString origin; // which view made it ("timeline", "suggestion S2", ...), for the status bar
    bool empty() const { return pcs.empty() && dmas.empty() && !focus && !slice.valid(); }
    bool containsPc(ChipId chip, std::uint32_t pc) const;
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
