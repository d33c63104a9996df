// MXU semantics: weight staging and commit, the 8 x 128 by 128 x 128 product through OpenBLAS (blas.h), and
// the result FIFO. Timing (latency, FIFO capacity) is the core model's.
#include "blas.h"
#include "execute_detail.h"

#include <bit>

namespace xps::sim::detail {

void executeMatrix(ChipState& state, const isa::Instruction& insn, const ExecOptions& options,
                   PendingWrites& writes)
{
    constexpr int D = isa::kMxuDim;
    // The trace validator keeps mxu= below the machine's mxu_count; this guards a program it did not see.
    const std::int64_t index = isa::mxuIndex(insn);
    if (index < 0 || index >= isa::kMaxMxus)
        throw SimFault{"mxu=" + std::to_string(index) + " names no MXU"};
    MxuState& mxu = state.mxus[static_cast<std::size_t>(index)];
    switch (insn.opcode) {
    case isa::Opcode::MxuWPush:
    case isa::Opcode::MxuWPushT: {
        // mxu.wpush: va's 8 rows are the next 8 rows of the staged weights. mxu.wpush.t: they are its next 8
        // columns, so a [N, K] matrix (keys, as attention multiplies by their transpose) pushed 8 rows of N
        // at a time becomes the [K, N] weights.
        const bool columns = insn.opcode == isa::Opcode::MxuWPushT;
        const VReg& pushed = vectorOperand(state, insn.operands[0]);
        if (mxu.stagedRows + isa::kSublanes > D)
            throw SimFault{columns ? "mxu.wpush.t beyond 128 staged weight columns: commit with mxu.wcommit "
                                     "after 16 pushes"
                                   : "mxu.wpush beyond 128 staged weight rows: commit with mxu.wcommit after "
                                     "16 pushes"};
        if (options.computeVectors) {
            mxu.staging.resize(D * D); // no-op once allocated
            for (int r = 0; r < isa::kSublanes; ++r)
                for (int lane = 0; lane < D; ++lane) {
                    const int row = columns ? lane : mxu.stagedRows + r,
                              column = columns ? mxu.stagedRows + r : lane;
                    mxu.staging[static_cast<std::size_t>(row * D + column)] =
                        std::bit_cast<float>(pushed[static_cast<std::size_t>(r * D + lane)]);
                }
        }
        mxu.stagedRows += isa::kSublanes;
        return;
    }
    case isa::Opcode::MxuWCommit:
        if (mxu.stagedRows != D)
            throw SimFault{"mxu.wcommit with " + std::to_string(mxu.stagedRows) +
                           " staged weight rows: 16 mxu.wpush (128 rows) must precede it"};
        std::swap(mxu.active, mxu.staging);
        mxu.stagedRows = 0;
        mxu.weightsActive = true;
        return;
    case isa::Opcode::MxuMm: {
        const VReg& lhs = vectorOperand(state, insn.operands[0]);
        if (!mxu.weightsActive)
            throw SimFault{"mxu.mm before any weights were committed (mxu.wcommit)"};
        // The product is computed straight into the FIFO entry to be pushed. Registers hold f32 bit
        // patterns; BLAS reads and writes them as floats through pointers it only sees from outside this
        // translation unit (the same bytes, no conversion): copying each 4 KiB operand in and out cost a
        // sixth of an MXU-bound replay.
        MxuResult& result = writes.mxuPush.emplace(); // zeroed: what timing-only mode leaves in it
        writes.pushMxu = static_cast<int>(index);
        if (options.computeVectors) {
            mxu.active.resize(D * D); // allocated by the pushes that committed it; a compare here
            blas::sgemm(isa::kSublanes, D, D, reinterpret_cast<const float*>(lhs.data()), mxu.active.data(),
                        reinterpret_cast<float*>(result.value.data()));
        }
        return;
    }
    case isa::Opcode::MxuPop:
        if (mxu.fifo.empty())
            throw SimFault{"mxu.pop with an empty result FIFO"};
        if (VReg* out = writes.vector(insn.operands[0].reg, options.computeVectors))
            *out = mxu.fifo.front().value;
        writes.popMxu = static_cast<int>(index);
        return;
    default: return;
    }
}

} // namespace xps::sim::detail
