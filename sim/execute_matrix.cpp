// MXU semantics: weight staging and commit, the 8 x 128 by 128 x 128 product through OpenBLAS, and the
// result FIFO. Timing (latency, FIFO capacity) is the core model's.
#include "execute_detail.h"

#include <bit>
#include <cblas.h>

namespace xps::sim::detail {

void executeMatrix(ChipState& state, const isa::Instruction& insn, const ExecOptions& options,
                   PendingWrites& writes)
{
    constexpr int D = isa::kMxuDim;
    switch (insn.opcode) {
    case isa::Opcode::MxuWPush: {
        const VReg& rows = vectorOperand(state, insn.operands[0]);
        if (state.stagedRows + isa::kSublanes > D)
            throw SimFault{
                "mxu.wpush beyond 128 staged weight rows: commit with mxu.wcommit after 16 pushes"};
        if (options.computeVectors)
            for (int i = 0; i < isa::kVectorElements; ++i)
                state.mxuStaging[static_cast<std::size_t>(state.stagedRows * D + i)] =
                    std::bit_cast<float>(rows[i]);
        state.stagedRows += isa::kSublanes;
        return;
    }
    case isa::Opcode::MxuWCommit:
        if (state.stagedRows != D)
            throw SimFault{"mxu.wcommit with " + std::to_string(state.stagedRows) +
                           " staged weight rows: 16 mxu.wpush (128 rows) must precede it"};
        std::swap(state.mxuActive, state.mxuStaging);
        state.stagedRows = 0;
        state.weightsActive = true;
        return;
    case isa::Opcode::MxuMm: {
        const VReg& lhs = vectorOperand(state, insn.operands[0]);
        if (!state.weightsActive)
            throw SimFault{"mxu.mm before any weights were committed (mxu.wcommit)"};
        MxuResult result{0, 0, {}};
        if (options.computeVectors) {
            float a[isa::kVectorElements];
            float c[isa::kVectorElements];
            for (int i = 0; i < isa::kVectorElements; ++i)
                a[i] = std::bit_cast<float>(lhs[i]);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, isa::kSublanes, D, D, 1.0f, a, D,
                        state.mxuActive.data(), D, 0.0f, c, D);
            for (int i = 0; i < isa::kVectorElements; ++i)
                result.value[i] = std::bit_cast<std::uint32_t>(c[i]);
        }
        writes.mxuPush = std::move(result);
        return;
    }
    case isa::Opcode::MxuPop:
        if (state.fifo.empty())
            throw SimFault{"mxu.pop with an empty result FIFO"};
        if (VReg* out = writes.vector(insn.operands[0].reg, options.computeVectors))
            *out = state.fifo.front().value;
        writes.mxuPop = true;
        return;
    default: return;
    }
}

} // namespace xps::sim::detail
