// reduce with a one-op reducer: the input is laid out in VMEM with one row per result element and its
// reduced elements along the lanes (rows padded to 128 lanes with the op's identity), then each group of 8
// rows is combined chunk by chunk on the vector unit and across lanes on the cross-lane unit; the initial
// value joins last. The result's elements leave VMEM as one strided descriptor.

#include <bit>
#include <limits>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

std::string v(int r)
{
    return "v" + std::to_string(r);
}

OpKind reducerOf(const Operation& op)
{
    if (op.regions.size() != 1)
        lowerFail("stablehlo.reduce without a reducer");
    const auto& ops = op.regions[0].operations;
    if (op.operands.size() != 2 || ops.size() != 2 || ops[0].operands.size() != 2 || ops[0].operands[0] > 1 ||
        ops[0].operands[1] > 1 || ops[1].operands.size() != 1 || ops[1].operands[0] != 2)
        lowerFail(
            "stablehlo.reduce has a lowering for one input and a reducer of one add, maximum or minimum");
    const auto kind = ops[0].kind;
    if (kind != OpKind::Add && kind != OpKind::Maximum && kind != OpKind::Minimum)
        lowerFail("stablehlo.reduce with a " + std::string(opName(kind)) + " reducer has no lowering yet");
    return kind;
}

} // namespace

void lowerReduce(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                 const TensorRef& out)
{
    const auto kind = reducerOf(op);
    const auto& x = in[0];
    if (x.type.element != ElementType::F32)
        lowerFail("stablehlo.reduce over " + std::string(elementTypeName(x.type.element)) +
                  " has no lowering yet");
    std::vector<bool> reduced(x.type.shape.size());
    for (const auto* a = op.attributes.find("dimensions"); const auto& item : a->items)
        reduced[static_cast<std::size_t>(item.integer)] = true;
    std::int64_t rowsCount = 1, width = 1;
    for (std::size_t d = 0; d < reduced.size(); ++d)
        (reduced[d] ? width : rowsCount) *= x.type.shape[d];
    const std::int64_t lanes = std::max<std::int64_t>((width + 127) / 128 * 128, 128);
    const std::int64_t rowBytes = lanes * 4;
    const std::int64_t groups = (rowsCount + 7) / 8;
    const auto staging = w.vmem(static_cast<std::uint64_t>(groups * 8 * rowBytes), "reduce's input rows");
    const auto results = w.vmem(static_cast<std::uint64_t>(groups * 4096), "reduce's results");
    // The identity of the reducer in every lane, so padding changes nothing.
    const float identity = kind == OpKind::Add       ? 0.0f
                           : kind == OpKind::Maximum ? -std::numeric_limits<float>::infinity()
                                                     : std::numeric_limits<float>::infinity();
    w.bundle("vbcast v0, " + std::to_string(std::bit_cast<std::uint32_t>(identity)));
    for (std::int64_t offset = 0; offset < groups * 8 * rowBytes; offset += 4096)
        w.bundle("vst v0, [" + std::to_string(staging + static_cast<std::uint64_t>(offset)) + "]");
    // Kept dimensions pick the row, reduced ones the lane.
    const auto xs = byteStrides(x.type.shape);
    std::vector<MoveDim> kept, lanesDims;
    for (std::size_t d = 0; d < reduced.size(); ++d)
        (reduced[d] ? lanesDims : kept).push_back({x.type.shape[d], xs[d], 0});
    std::int64_t stride = rowBytes;
    for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
        it->dstStride = stride;
        stride *= it->size;
    }
    stride = 4;
    for (auto it = lanesDims.rbegin(); it != lanesDims.rend(); ++it) {
        it->dstStride = stride;
        stride *= it->size;
    }
    kept.insert(kept.end(), lanesDims.begin(), lanesDims.end());
    auto s = w.stream();
    w.move(s, isa::Space::Vmem, staging, isa::Space::Hbm, x.address, kept);
    broadcastScalar(w, in[1], 7);
    if (kind == OpKind::Minimum)
        w.bundle("vbcast v6, 2147483648");
    w.waitAll(s);
    const char* combine = kind == OpKind::Add       ? "vadd.f32"
                          : kind == OpKind::Maximum ? "vmax.f32"
                                                    : "vmin.f32";
    for (std::int64_t g = 0; g < groups; ++g) {
        for (std::int64_t c = 0; c < lanes / 128; ++c) {
            const auto address = staging + static_cast<std::uint64_t>(g * 8 * rowBytes + c * 512);
            w.bundle("vld.s " + v(c == 0 ? 1 : 2) + ", [" + std::to_string(address) + "], " +
                     std::to_string(rowBytes));
            if (c > 0)
                w.bundle(std::string(combine) + " v1, v1, v2");
        }
        if (kind == OpKind::Add) {
            w.bundle("xlu.rsum.f32 v3, v1");
        } else if (kind == OpKind::Maximum) {
            w.bundle("xlu.rmax.f32 v3, v1");
        } else { // min(x) = -max(-x)
            w.bundle("vxor v1, v1, v6");
            w.bundle("xlu.rmax.f32 v3, v1");
            w.bundle("vxor v3, v3, v6");
        }
        w.bundle(std::string(combine) + " v4, v7, v3");
        w.bundle("vst v4, [" + std::to_string(results + static_cast<std::uint64_t>(g * 4096)) + "]");
    }
    auto back = w.stream();
    if (rowsCount > 0)
        w.dma(back, isa::Space::Hbm, out.address, isa::Space::Vmem, results, 4,
              static_cast<std::uint64_t>(rowsCount), 512, 4);
    w.waitAll(back);
}

} // namespace xps::shlo::lower
