// The kernel each op is lowered with (lower_kernels.h).

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

void lowerKernel(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                 const std::vector<TensorRef>& outs, const ChipContext& chip, const DotBias* bias)
{
    const auto& out = outs.at(0);
    if (elementwiseArity(op.kind) > 0) {
        lowerElementwise(w, op, in, out);
        return;
    }
    switch (op.kind) {
    case OpKind::BroadcastInDim:
    case OpKind::Transpose:
    case OpKind::Slice:
    case OpKind::Reverse:
    case OpKind::Concatenate:
    case OpKind::Pad: lowerMovement(w, op, in, out); break;
    case OpKind::Reduce: lowerReduce(w, op, in, outs); break;
    case OpKind::ReduceWindow: lowerReduceWindow(w, op, in, out); break;
    case OpKind::Convolution: lowerConvolution(w, op, in, out); break;
    case OpKind::Gather: lowerGather(w, op, in, out); break;
    case OpKind::Scatter: lowerScatter(w, op, in, out); break;
    case OpKind::DynamicSlice: lowerDynamicSlice(w, in, out); break;
    case OpKind::DynamicUpdateSlice: lowerDynamicUpdateSlice(w, in, out); break;
    case OpKind::DotGeneral:
    case OpKind::Dot: lowerDot(w, op, in, out, bias); break;
    case OpKind::AllReduce:
    case OpKind::AllGather:
    case OpKind::ReduceScatter:
    case OpKind::CollectivePermute: lowerCollective(w, op, in.at(0), out, chip); break;
    default: lowerFail("no lowering to xpu-v1 yet");
    }
}

} // namespace xps::shlo::lower
