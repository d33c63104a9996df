// MXU semantics: weight staging and commit, the 8 x 128 by 128 x 128 product through OpenBLAS (blas.h), and
// the result FIFO. Timing (latency, FIFO capacity) is the core model's.
#include "blas.h"
#include "execute_detail.h"
#include "util/half_float.h"

#include <bit>

namespace xps::sim::detail {

namespace {

// Row `row` (0..rows-1) of an MXU operand register as f32 bit patterns: f32 rows as they are; packed f16
// or bf16 rows (16 to a register, half h in row h / 2, elements 2i and 2i + 1 in the low and high 16 bits
// of lane i of that half) widened exactly, so the MXU multiplies the same values a widening DMA gives.
std::uint32_t operandElement(const VReg& reg, std::int64_t format, int row, int column)
{
    if (format == isa::kMxuF32)
        return reg[static_cast<std::size_t>(row * isa::kLanes + column)];
    const std::uint32_t word =
        reg[static_cast<std::size_t>((row / 2) * isa::kLanes + (row % 2) * (isa::kLanes / 2) + column / 2)];
    const auto bits = static_cast<std::uint16_t>(column % 2 == 0 ? word & 0xffffu : word >> 16);
    return format == isa::kMxuBf16 ? half::bf16ToF32(bits) : half::f16ToF32(bits);
}

} // namespace

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
        const std::int64_t format = isa::mxuFormat(insn);
        const int rows = isa::mxuRowsPerRegister(format);
        if (mxu.stagedRows + rows > D)
            throw SimFault{std::string(columns ? "mxu.wpush.t beyond 128 staged weight columns"
                                               : "mxu.wpush beyond 128 staged weight rows") +
                           ": commit with mxu.wcommit after 16 pushes (8 packed ones)"};
        if (options.computeVectors) {
            mxu.staging.resize(D * D); // no-op once allocated
            for (int r = 0; r < rows; ++r)
                for (int lane = 0; lane < D; ++lane) {
                    const int row = columns ? lane : mxu.stagedRows + r,
                              column = columns ? mxu.stagedRows + r : lane;
                    mxu.staging[static_cast<std::size_t>(row * D + column)] =
                        std::bit_cast<float>(operandElement(pushed, format, r, lane));
                }
        }
        mxu.stagedRows += rows;
        return;
    }
    case isa::Opcode::MxuWCommit:
        if (mxu.stagedRows != D)
            throw SimFault{"mxu.wcommit with " + std::to_string(mxu.stagedRows) +
                           " staged weight rows: 128 rows (16 mxu.wpush, 8 packed) must precede it"};
        std::swap(mxu.active, mxu.staging);
        mxu.stagedRows = 0;
        mxu.weightsActive = true;
        return;
    case isa::Opcode::MxuMm: {
        const VReg& lhs = vectorOperand(state, insn.operands[0]);
        if (!mxu.weightsActive)
            throw SimFault{"mxu.mm before any weights were committed (mxu.wcommit)"};
        // The product is computed straight into the FIFO entry to be pushed (two for 16 packed rows).
        // Registers hold f32 bit patterns; BLAS reads and writes them as floats through pointers it only
        // sees from outside this translation unit (the same bytes, no conversion): copying each 4 KiB
        // operand in and out cost a sixth of an MXU-bound replay. Packed rows are widened first.
        const std::int64_t format = isa::mxuFormat(insn);
        const int results = isa::mxuRowsPerRegister(format) / isa::kSublanes;
        writes.pushMxu = static_cast<int>(index);
        for (int part = 0; part < results; ++part) {
            MxuResult& result = writes.pushResult(); // zeroed: what timing-only mode leaves in it
            if (!options.computeVectors)
                continue;
            mxu.active.resize(D * D); // allocated by the pushes that committed it; a compare here
            const float* rows = reinterpret_cast<const float*>(lhs.data());
            VReg widened;
            if (format != isa::kMxuF32) {
                for (int r = 0; r < isa::kSublanes; ++r)
                    for (int lane = 0; lane < D; ++lane)
                        widened[static_cast<std::size_t>(r * D + lane)] =
                            operandElement(lhs, format, part * isa::kSublanes + r, lane);
                rows = reinterpret_cast<const float*>(widened.data());
            }
            blas::sgemm(isa::kSublanes, D, D, rows, mxu.active.data(),
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
