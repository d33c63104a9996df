// Windowed ops. Both gather, for every window position k, the input elements each output position reads
// there: along each spatial dimension those output positions form an arithmetic progression (the ones
// whose input position o * stride + k * dilation - padding lands on a real element of the base-dilated
// input), so each window position is one strided move. reduce_window gathers into reduction rows (one row
// per output element, one lane per window element) and combines them; convolution gathers a patch matrix
// (im2col: one row per output position, one column per kernel position and input feature) and multiplies
// it by the kernel on the MXU.

#include <algorithm>
#include <functional>
#include <numeric>

#include "stablehlo/eval_ops.h"
#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

struct Progression
{
    std::int64_t o0 = 0, oStep = 1, i0 = 0, iStep = 0, count = 0;
};

// The output positions o < outSize whose input position p = o * stride + offset is a real element:
// 0 <= p <= (inSize - 1) * baseDilation and p a multiple of baseDilation.
Progression progression(std::int64_t outSize, std::int64_t inSize, std::int64_t stride, std::int64_t offset,
                        std::int64_t baseDilation)
{
    Progression p;
    if (inSize == 0 || outSize == 0)
        return p;
    p.oStep = baseDilation / std::gcd(stride, baseDilation);
    const std::int64_t oMin = std::max<std::int64_t>(0, -floorDiv(offset, stride));
    std::int64_t o0 = -1;
    for (std::int64_t o = oMin; o < oMin + p.oStep; ++o)
        if ((o * stride + offset) >= 0 && (o * stride + offset) % baseDilation == 0) {
            o0 = o;
            break;
        }
    const std::int64_t oMax = std::min(outSize - 1, floorDiv((inSize - 1) * baseDilation - offset, stride));
    if (o0 < 0 || o0 > oMax)
        return p;
    p.o0 = o0;
    p.count = (oMax - o0) / p.oStep + 1;
    p.i0 = (o0 * stride + offset) / baseDilation;
    p.iStep = p.oStep * stride / baseDilation;
    return p;
}

// Calls fn(k) for every index of `shape`, row-major.
template <typename Fn> void forEach(const std::vector<std::int64_t>& shape, Fn&& fn)
{
    detail::forEachIndex(shape,
                         [&](const std::vector<std::int64_t>& k, std::int64_t linear) { fn(k, linear); });
}

} // namespace

void lowerReduceWindow(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                       const TensorRef& out)
{
    const bool simple = isSimpleReducer(op);
    const auto kind = simple ? reducerKind(op) : OpKind::Add;
    if (op.operands.size() != 2)
        lowerFail("reduce_window with several inputs has no lowering yet");
    const auto& x = in[0];
    if (!isFloat(x.type.element))
        lowerFail("stablehlo.reduce_window over " + std::string(elementTypeName(x.type.element)) +
                  " has no lowering yet");
    const auto rank = static_cast<std::size_t>(x.type.rank());
    const auto window = detail::flatIntsAttr(op, "window_dimensions", rank, 1);
    const auto strides = detail::flatIntsAttr(op, "window_strides", rank, 1);
    const auto baseDil = detail::flatIntsAttr(op, "base_dilations", rank, 1);
    const auto winDil = detail::flatIntsAttr(op, "window_dilations", rank, 1);
    const auto padding = detail::flatIntsAttr(op, "padding", 2 * rank, 0);
    std::int64_t windowCount = 1;
    for (const auto k : window)
        windowCount *= k;
    const auto xs = byteStrides(x.type.shape);
    const auto outputs = out.type.elementCount();
    // For each window position, the output positions that read a real element there, and where.
    const auto gather = [&](DmaStream& s, std::uint64_t base, const std::vector<std::int64_t>& outStride,
                            std::int64_t positionStride) {
        forEach(window, [&](const std::vector<std::int64_t>& k, std::int64_t position) {
            std::vector<MoveDim> dims;
            std::int64_t src = 0, dst = position * positionStride;
            for (std::size_t d = 0; d < rank; ++d) {
                const auto p = progression(out.type.shape[d], x.type.shape[d], strides[d],
                                           k[d] * winDil[d] - padding[2 * d], baseDil[d]);
                if (p.count == 0)
                    return;
                dims.push_back({p.count, p.iStep * xs[d], p.oStep * outStride[d]});
                src += p.i0 * xs[d];
                dst += p.o0 * outStride[d];
            }
            w.move(s, isa::Space::Vmem, base + static_cast<std::uint64_t>(dst), isa::Space::Hbm,
                   x.address + static_cast<std::uint64_t>(src), dims);
        });
    };
    std::vector<std::int64_t> outStride(rank);
    if (fitsColumns(w, outputs, windowCount)) {
        // Padding and dilation holes hold the initial value, as the specification pads with it; then every
        // window combines in the interpreter's order.
        const auto columns = reductionColumns(w, kind, outputs, windowCount);
        broadcastScalar(w, in[1], 0);
        for (std::int64_t offset = 0; offset < columns.padded * windowCount * 4; offset += 4096)
            w.bundle("vst v0, [" + std::to_string(columns.staging + static_cast<std::uint64_t>(offset)) +
                     "]");
        std::int64_t stride = 4;
        for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
            outStride[static_cast<std::size_t>(d)] = stride;
            stride *= out.type.shape[static_cast<std::size_t>(d)];
        }
        auto s = w.stream();
        gather(s, columns.staging, outStride, columns.padded * 4);
        w.waitAll(s);
        if (simple)
            combineColumns(w, columns, in[1], out);
        else // any element-wise reducer, lowered to vector code
            combineBlocks(w, op.regions[0], {columns.staging}, columns.padded, windowCount, outputs, {in[1]},
                          {out});
        return;
    }
    if (!simple)
        lowerFail("a reduce_window this large with a reducer other than one add, maximum or minimum has no "
                  "lowering yet");
    bool padded = false;
    for (std::size_t d = 0; d < rank; ++d)
        padded |= padding[2 * d] != 0 || padding[2 * d + 1] != 0 || baseDil[d] != 1;
    // Padding and dilation holes hold the initial value; these rows start out holding the reducer's identity.
    if (padded &&
        !(in[1].scalarConstant && static_cast<float>(*in[1].scalarConstant) == reducerIdentity(kind)))
        lowerFail(
            "a reduce_window this large with padding or base dilation needs an initial value equal to the "
            "reducer's identity (0 for add, -inf for maximum, +inf for minimum)");
    const auto rows = reductionRows(w, kind, outputs, windowCount);
    std::int64_t stride = rows.rowBytes;
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
        outStride[static_cast<std::size_t>(d)] = stride;
        stride *= out.type.shape[static_cast<std::size_t>(d)];
    }
    auto s = w.stream();
    gather(s, rows.staging, outStride, 4);
    w.waitAll(s);
    combineRows(w, rows, in[1], out);
}

namespace {

std::int64_t at(const TensorType& t, std::int64_t d)
{
    return t.shape[static_cast<std::size_t>(d)];
}

} // namespace

void lowerConvolution(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                      const TensorRef& out)
{
    const auto& lhs = in[0];
    const auto& rhs = in[1];
    const int rank = lhs.type.rank();
    const auto* numbers = op.attributes.find("dimension_numbers");
    if (!numbers || numbers->kind != Attribute::Kind::List || numbers->items.size() != 3)
        lowerFail("missing dimension numbers");
    const auto L = detail::convLayout(numbers->items[0], 'b', 'f', rank);
    const auto K = detail::convLayout(numbers->items[1], 'i', 'o', rank);
    const auto O = detail::convLayout(numbers->items[2], 'b', 'f', rank);
    const auto* batchGroups = op.attributes.find("batch_group_count");
    if (batchGroups && batchGroups->integer != 1)
        lowerFail("convolutions with batch_group_count > 1 have no lowering yet");
    const auto* groupCount = op.attributes.find("feature_group_count");
    const std::int64_t G = groupCount ? groupCount->integer : 1;
    const auto S = static_cast<std::size_t>(rank - 2);
    const auto strides = detail::flatIntsAttr(op, "window_strides", S, 1);
    const auto padding = detail::flatIntsAttr(op, "padding", 2 * S, 0);
    const auto lhsDil = detail::flatIntsAttr(op, "lhs_dilation", S, 1);
    const auto rhsDil = detail::flatIntsAttr(op, "rhs_dilation", S, 1);
    const auto reversal = detail::flatIntsAttr(op, "window_reversal", S, 0);
    const std::int64_t N = at(lhs.type, L.batch), C = at(lhs.type, L.feature), F = at(rhs.type, K.feature);
    if (G < 1 || C % G != 0 || F % G != 0 || at(rhs.type, K.batch) != C / G)
        lowerFail("feature_group_count does not divide the input and output features");
    const std::int64_t Cg = C / G, Fg = F / G; // each group: Cg input features to Fg output features
    std::vector<std::int64_t> kernel(S), outSpatial(S);
    std::int64_t positions = N, kernelCount = 1;
    for (std::size_t s = 0; s < S; ++s) {
        kernel[s] = at(rhs.type, K.spatial[s]);
        outSpatial[s] = at(out.type, O.spatial[s]);
        positions *= outSpatial[s];
        kernelCount *= kernel[s];
    }
    const std::int64_t width = kernelCount * Cg;
    const auto ls = byteStrides(lhs.type.shape);
    const auto ks = byteStrides(rhs.type.shape);
    const auto os = byteStrides(out.type.shape);
    std::vector<std::int64_t> rowStride(S);
    std::int64_t stride = width * 4;
    for (int s = static_cast<int>(S) - 1; s >= 0; --s) {
        rowStride[static_cast<std::size_t>(s)] = stride;
        stride *= outSpatial[static_cast<std::size_t>(s)];
    }
    const std::int64_t batchStride = stride;
    // The product [N * out positions, Fg] is the result itself when there is one group and the result is laid
    // out [b, spatial..., f]; otherwise each group's product is moved into its features of the result.
    bool direct = G == 1 && O.batch == 0 && O.feature == rank - 1;
    for (std::size_t s = 0; s < S; ++s)
        direct &= O.spatial[s] == static_cast<std::int64_t>(s) + 1;
    for (std::int64_t g = 0; g < G; ++g) {
        w.beginKernel();
        // The patch matrix [N * out positions, kernel positions * Cg], zero where the window reads padding.
        const auto patchesBytes = static_cast<std::uint64_t>(positions * width * 4);
        const auto patchesV = w.vmem(patchesBytes, "the convolution's patch matrix");
        w.bundle("vbcast v15, 0");
        for (std::uint64_t a = 0; a < patchesBytes; a += 4096)
            w.bundle("vst v15, [" + std::to_string(patchesV + a) + "]");
        auto gather = w.stream();
        const std::int64_t channel = g * Cg * ls[static_cast<std::size_t>(L.feature)];
        forEach(kernel, [&](const std::vector<std::int64_t>& k, std::int64_t column) {
            std::vector<MoveDim> dims = {{N, ls[static_cast<std::size_t>(L.batch)], batchStride}};
            std::int64_t src = channel, dst = column * Cg * 4;
            for (std::size_t s = 0; s < S; ++s) {
                const auto kk = reversal[s] ? kernel[s] - 1 - k[s] : k[s];
                const auto p = progression(outSpatial[s], at(lhs.type, L.spatial[s]), strides[s],
                                           kk * rhsDil[s] - padding[2 * s], lhsDil[s]);
                if (p.count == 0)
                    return;
                dims.push_back(
                    {p.count, p.iStep * ls[static_cast<std::size_t>(L.spatial[s])], p.oStep * rowStride[s]});
                src += p.i0 * ls[static_cast<std::size_t>(L.spatial[s])];
                dst += p.o0 * rowStride[s];
            }
            dims.push_back({Cg, ls[static_cast<std::size_t>(L.feature)], 4});
            w.move(gather, isa::Space::Vmem, patchesV + static_cast<std::uint64_t>(dst), isa::Space::Hbm,
                   lhs.address + static_cast<std::uint64_t>(src), dims);
        });
        // The group's kernel as a [kernel positions * Cg, Fg] matrix, rows in the patch columns' order.
        const auto kernelBytes = static_cast<std::uint64_t>(width * Fg * 4);
        const auto kernelV = w.vmem(kernelBytes, "the convolution's kernel matrix");
        std::vector<MoveDim> kdims(S);
        std::int64_t kstride = Cg * Fg * 4;
        for (int s = static_cast<int>(S) - 1; s >= 0; --s) {
            const auto u = static_cast<std::size_t>(s);
            kdims[u] = {kernel[u], ks[static_cast<std::size_t>(K.spatial[u])], kstride};
            kstride *= kernel[u];
        }
        kdims.push_back({Cg, ks[static_cast<std::size_t>(K.batch)], Fg * 4});
        kdims.push_back({Fg, ks[static_cast<std::size_t>(K.feature)], 4});
        w.move(gather, isa::Space::Vmem, kernelV, isa::Space::Hbm,
               rhs.address + static_cast<std::uint64_t>(g * Fg * ks[static_cast<std::size_t>(K.feature)]),
               kdims);
        w.waitAll(gather);
        TensorRef patches{w.hbmBuffer("conv_patches", patchesBytes, "f32", {positions, width}),
                          {{positions, width}, ElementType::F32},
                          {}};
        TensorRef matrix{
            w.hbmBuffer("conv_kernel", kernelBytes, "f32", {width, Fg}), {{width, Fg}, ElementType::F32}, {}};
        auto spill = w.stream();
        if (patchesBytes > 0)
            w.dma(spill, isa::Space::Hbm, patches.address, isa::Space::Vmem, patchesV, patchesBytes);
        if (kernelBytes > 0)
            w.dma(spill, isa::Space::Hbm, matrix.address, isa::Space::Vmem, kernelV, kernelBytes);
        w.waitAll(spill);
        TensorRef product{direct ? out.address
                                 : w.hbmBuffer("conv_product", static_cast<std::uint64_t>(positions * Fg * 4),
                                               "f32", {positions, Fg}),
                          {{positions, Fg}, ElementType::F32},
                          {}};
        Operation dot;
        dot.kind = OpKind::Dot;
        dot.resultTypes = {product.type};
        w.beginKernel(); // the patch and kernel copies in VMEM are spent
        lowerDot(w, dot, {patches, matrix}, product);
        if (direct)
            return;
        // [N, spatial..., Fg] into the group's features of the result, HBM to HBM.
        std::vector<MoveDim> m = {
            {N, positions / std::max<std::int64_t>(N, 1) * Fg * 4, os[static_cast<std::size_t>(O.batch)]}};
        std::int64_t ps = Fg * 4;
        std::vector<MoveDim> sp(S);
        for (int s = static_cast<int>(S) - 1; s >= 0; --s) {
            const auto u = static_cast<std::size_t>(s);
            sp[u] = {outSpatial[u], ps, os[static_cast<std::size_t>(O.spatial[u])]};
            ps *= outSpatial[u];
        }
        m.insert(m.end(), sp.begin(), sp.end());
        m.push_back({Fg, 4, os[static_cast<std::size_t>(O.feature)]});
        auto back = w.stream();
        w.move(back, isa::Space::Hbm,
               out.address + static_cast<std::uint64_t>(g * Fg * os[static_cast<std::size_t>(O.feature)]),
               isa::Space::Hbm, product.address, m);
        w.waitAll(back);
    }
}

} // namespace xps::shlo::lower
