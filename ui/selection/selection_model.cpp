#include "selection/selection_model.h"

#include <algorithm>

namespace xps::ui {

bool Selection::containsPc(ChipId chip, std::uint32_t pc) const
{
    return std::binary_search(pcs.begin(), pcs.end(), std::make_pair(chip, pc));
}

bool Selection::containsDma(std::uint32_t id) const
{
    return std::binary_search(dmas.begin(), dmas.end(), id);
}

void SelectionModel::setTimeRange(std::uint64_t from, std::uint64_t to)
{
    m_following = false;
    setRange(from, to);
}

void SelectionModel::setFollowRange(std::uint64_t from, std::uint64_t to)
{
    if (m_following)
        setRange(from, to);
}

void SelectionModel::setRange(std::uint64_t from, std::uint64_t to)
{
    if (to <= from)
        to = from + 1;
    if (from == m_from && to == m_to)
        return;
    m_from = from;
    m_to = to;
    emit timeRangeChanged(from, to);
}

void SelectionModel::select(Selection selection)
{
    std::sort(selection.pcs.begin(), selection.pcs.end());
    selection.pcs.erase(std::unique(selection.pcs.begin(), selection.pcs.end()), selection.pcs.end());
    std::sort(selection.dmas.begin(), selection.dmas.end());
    selection.dmas.erase(std::unique(selection.dmas.begin(), selection.dmas.end()), selection.dmas.end());
    m_selection = std::move(selection);
    emit selectionChanged();
}

void SelectionModel::clear()
{
    m_selection = {};
    // The range is forgotten without a signal: the views of a newly opened trace choose their own first
    // range (the whole replay) and publish it.
    m_from = 0;
    m_to = 1;
    m_following = true;
    emit selectionChanged();
}

} // namespace xps::ui
