#pragma once
// Collectives in the reference interpreter: every process (one per chip: replicas x partitions, numbered
// replica * partitions + partition) runs the module on a thread of its own and meets the others at each
// collective, in program order, where they exchange operands. Each then computes its own result from the
// operands of its group (replica_groups, or every process when absent), in the group's listed order.

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "stablehlo/eval_ops.h"

namespace xps::shlo::detail {

class Rendezvous
{
public:
    explicit Rendezvous(int processes) : m_processes(processes) {}

    // Deposits this process's operand of its `sequence`-th collective and returns every process's operand
    // once all have arrived. Throws EvalError if another process failed (abort) first.
    std::vector<std::shared_ptr<const TensorValue>> exchange(std::uint64_t sequence, int process,
                                                             std::shared_ptr<const TensorValue> operand);
    void abort();
    int processes() const { return m_processes; }

private:
    struct Meeting
    {
        std::vector<std::shared_ptr<const TensorValue>> operands;
        int arrived = 0, left = 0;
    };
    int m_processes;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::map<std::uint64_t, Meeting> m_meetings;
    bool m_aborted = false;
};

// The groups of processes an op's replica_groups (or source_target_pairs) name, and this process's group.
std::vector<std::vector<std::int64_t>> processGroups(const Operation& op, int processes);

// The result of a collective for `process`, given every process's operand.
TensorValue evalCollective(const Operation& op, int process,
                           const std::vector<std::shared_ptr<const TensorValue>>& operands,
                           RegionRunner& runner, WorkMeter& meter);

} // namespace xps::shlo::detail
