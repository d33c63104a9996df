#pragma once
// A FIFO in one growing array: a DMA engine's descriptor queue, the MXU result FIFO. std::deque allocated a
// block for every two transfers (a few hundred bytes each) and for every 4 KiB product; here the slots are
// reused once the queue has reached its working depth.

#include <cstddef>
#include <utility>
#include <vector>

namespace xps::sim {

template <typename T> class Ring
{
public:
    bool empty() const { return m_size == 0; }
    std::size_t size() const { return m_size; }
    T& front() { return m_slots[m_head]; }
    const T& front() const { return m_slots[m_head]; }
    T& back() { return (*this)[m_size - 1]; }
    // i-th element from the front.
    T& operator[](std::size_t i) { return m_slots[(m_head + i) & (m_slots.size() - 1)]; }
    const T& operator[](std::size_t i) const { return m_slots[(m_head + i) & (m_slots.size() - 1)]; }

    // Assigns into the slot (no temporary: an MXU product is 4 KiB).
    template <typename U> void push_back(U&& value)
    {
        if (m_size == m_slots.size())
            grow();
        (*this)[m_size] = std::forward<U>(value);
        ++m_size;
    }
    // The slot after the back, to be filled in place (a DMA's transfer is a few hundred bytes: filling it
    // where it lives saves building it aside and moving it in). What the slot held before is still there
    // (its vectors keep their capacity): the caller assigns every member.
    T& push_slot()
    {
        if (m_size == m_slots.size())
            grow();
        ++m_size;
        return back();
    }
    // The popped element stays in its slot until push_back reuses it (what it owns is released then):
    // resetting it here cost a construction and a move per DMA.
    void pop_front()
    {
        m_head = (m_head + 1) & (m_slots.size() - 1);
        --m_size;
    }

private:
    void grow()
    {
        std::vector<T> grown(m_slots.empty() ? 4 : m_slots.size() * 2); // a power of two: wrap by mask
        for (std::size_t i = 0; i < m_size; ++i)
            grown[i] = std::move((*this)[i]);
        m_slots = std::move(grown);
        m_head = 0;
    }

    std::vector<T> m_slots;
    std::size_t m_head = 0;
    std::size_t m_size = 0;
};

} // namespace xps::sim
