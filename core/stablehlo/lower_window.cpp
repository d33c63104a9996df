// Windowed ops. Both gather, for every window position k, the input elements each output position reads
// there: along each spatial dimension those output positions form an arithmetic progression (the ones
// whose input position o * stride + k * dilation - padding lands on a real element of the base-dilated
// input), so each window position is one strided move. reduce_window gathers into reduction rows (one row
// per output element, one lane per window element) and combines them; convolution gathers a patch matrix
// (im2col: one row per output position, one column per kernel position and input feature) and multiplies
// it by the kernel on the MXU.

#include <algorithm>
#include <bit>
#include <functional>
#include <numeric>

#include "stablehlo/eval_ops.h"
#include "stablehlo/lower_kernels.h"
#include "stablehlo/lower_slabs.h"

namespace xps::shlo::lower {

namespace {

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
    if (op.operands.size() != 2)
        lowerFail("reduce_window with several inputs has no lowering yet");
    const auto& x = in[0];
    // Integers take the general path (the region's own vector code), as reduce does.
    const bool simple = isSimpleReducer(op) && isFloat(x.type.element);
    const auto kind = simple ? reducerKind(op) : OpKind::Add;
    const auto rank = static_cast<std::size_t>(x.type.rank());
    const auto window = detail::flatIntsAttr(op, "window_dimensions", rank, 1);
    const auto strides = detail::flatIntsAttr(op, "window_strides", rank, 1);
    const auto baseDil = detail::flatIntsAttr(op, "base_dilations", rank, 1);
    const auto winDil = detail::flatIntsAttr(op, "window_dilations", rank, 1);
    const auto padding = detail::flatIntsAttr(op, "padding", 2 * rank, 0);
    std::int64_t windowCount = 1;
    for (const auto k : window)
        windowCount *= k;
    const auto xs = byteStrides(x.type.shape, x.elementBytes); // packed (f16/bf16): widened on the way in
    const auto outputs = out.type.elementCount();
    // For each window position, the output positions of `slab` that read a real element there, and where
    // (relative to the slab's first output).
    const Slab whole{std::vector<std::int64_t>(rank, 0), out.type.shape, 0, 0, 0};
    const auto gather = [&](DmaStream& s, std::uint64_t base, const std::vector<std::int64_t>& outStride,
                            std::int64_t positionStride, const Slab& slab) {
        forEach(window, [&](const std::vector<std::int64_t>& k, std::int64_t position) {
            std::vector<MoveDim> dims;
            std::int64_t src = 0, dst = position * positionStride;
            for (std::size_t d = 0; d < rank; ++d) {
                const auto all = progression(out.type.shape[d], x.type.shape[d], strides[d],
                                             k[d] * winDil[d] - padding[2 * d], baseDil[d]);
                const auto p = restrictTo(all, slab.lo[d], slab.hi[d]);
                if (p.count == 0)
                    return;
                dims.push_back({p.count, p.iStep * xs[d], p.oStep * outStride[d]});
                src += p.i0 * xs[d];
                dst += (p.o0 - slab.lo[d]) * outStride[d];
            }
            w.move(s, isa::Space::Vmem, base + static_cast<std::uint64_t>(dst), isa::Space::Hbm,
                   x.address + static_cast<std::uint64_t>(src), dims, x.widening());
        });
    };
    std::vector<std::int64_t> outStride(rank);
    if (fitsColumns(w, outputs, windowCount)) {
        // Padding and dilation holes hold the initial value, as the specification pads with it; then every
        // window combines in the interpreter's order.
        const auto columns = reductionColumns(w, kind, outputs, windowCount);
        broadcastScalar(w, in[1], 0);
        w.fill("v0", columns.staging, static_cast<std::uint64_t>(columns.padded * windowCount * 4));
        std::int64_t stride = 4;
        for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
            outStride[static_cast<std::size_t>(d)] = stride;
            stride *= out.type.shape[static_cast<std::size_t>(d)];
        }
        auto s = w.stream();
        gather(s, columns.staging, outStride, columns.padded * 4, whole);
        w.waitAll(s);
        if (simple)
            combineColumns(w, columns, in[1], out);
        else // any element-wise reducer, lowered to vector code
            combineBlocks(w, op.regions[0], {columns.staging}, columns.padded, windowCount, outputs, {in[1]},
                          {out});
        return;
    }
    if (!simple)
        lowerFail("a reduce_window this large over integers or with a reducer other than one add, maximum or "
                  "minimum has no lowering yet");
    bool padded = false;
    for (std::size_t d = 0; d < rank; ++d)
        padded |= padding[2 * d] != 0 || padding[2 * d + 1] != 0 || baseDil[d] != 1;
    // Padding and dilation holes hold the initial value; these rows start out holding the reducer's identity.
    if (padded &&
        !(in[1].scalarConstant && static_cast<float>(*in[1].scalarConstant) == reducerIdentity(kind)))
        lowerFail(
            "a reduce_window this large with padding or base dilation needs an initial value equal to the "
            "reducer's identity (0 for add, -inf for maximum, +inf for minimum)");
    const std::int64_t rowBytes = std::max<std::int64_t>((windowCount + 127) / 128 * 128, 128) * 4;
    std::int64_t stride = rowBytes;
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
        outStride[static_cast<std::size_t>(d)] = stride;
        stride *= out.type.shape[static_cast<std::size_t>(d)];
    }
    // The rows (in groups of 8) and a results register per group.
    const auto rowsBytes = [&](std::int64_t n) {
        return static_cast<std::uint64_t>((n + 7) / 8 * (8 * rowBytes + 4096));
    };
    const std::uint64_t budget = w.vmemAvailable() / 4096 * 4096;
    if (rowsBytes(outputs) <= budget) {
        const auto rows = reductionRows(w, kind, outputs, windowCount);
        auto s = w.stream();
        gather(s, rows.staging, outStride, 4, whole);
        w.waitAll(s);
        combineRows(w, rows, in[1], out);
        return;
    }
    // Larger than VMEM: slabs of outputs (forEachSlab; a row costs its bytes and an eighth of a results
    // register, and a slab's last group of 8 may be partial), each gathered into the same rows and combined
    // into its part of the result. With padding, a slab's holes differ from the one before: the rows go
    // back to the identity first.
    const std::uint64_t reserve = static_cast<std::uint64_t>(8 * rowBytes + 4096);
    if (budget <= reserve)
        lowerFail("a reduce_window whose windows (" + std::to_string(windowCount) + " elements) need " +
                  std::to_string(rowsBytes(1)) + " bytes of VMEM for one output; " + std::to_string(budget) +
                  " are free");
    const std::uint64_t capacity = budget - reserve;
    const auto perRow = rowBytes + 512;
    std::vector<std::int64_t> slabStrides(rank);
    for (std::int64_t d = static_cast<std::int64_t>(rank) - 1, n = perRow; d >= 0; --d) {
        slabStrides[static_cast<std::size_t>(d)] = n;
        n *= out.type.shape[static_cast<std::size_t>(d)];
    }
    const auto most = std::min<std::int64_t>(outputs, static_cast<std::int64_t>(capacity / perRow));
    const ReductionRows rows = reductionRows(w, kind, std::max<std::int64_t>(most, 1), windowCount);
    auto s = w.stream();
    auto back = w.stream();
    bool first = true;
    forEachSlab(out.type.shape, slabStrides, capacity, 0, "a reduce_window", [&](const Slab& slab) {
        if (padded && !first) {
            w.bundle("vbcast v0, " + std::to_string(std::bit_cast<std::uint32_t>(reducerIdentity(kind))));
            w.fill("v0", rows.staging, static_cast<std::uint64_t>(rows.groups * 8 * rowBytes));
        }
        first = false;
        gather(s, rows.staging, outStride, 4, slab);
        w.waitAll(s);
        ReductionRows part = rows;
        part.rows = static_cast<std::int64_t>(slab.bytes) / perRow;
        part.groups = (part.rows + 7) / 8;
        TensorRef results = out;
        results.address += static_cast<std::uint64_t>(slab.offset / perRow * out.elementBytes);
        combineRows(w, part, in[1], results, &back); // waits for its results to leave: the rows are reused
    });
}

namespace {

std::int64_t at(const TensorType& t, std::int64_t d)
{
    return t.shape[static_cast<std::size_t>(d)];
}

// A convolution as im2col: its layouts, window and the patch matrix [N * out positions, kernel positions x
// Cg] of one feature group (row-major over [N, out spatial...], `rowStride` bytes per spatial step).
struct Im2col
{
    detail::ConvLayout L, K, O;
    std::size_t S = 0; // spatial dimensions
    std::vector<std::int64_t> strides, padding, lhsDil, rhsDil, reversal;
    std::int64_t N = 0, Cg = 0, Fg = 0, G = 1, positions = 0, width = 0, batchStride = 0;
    std::vector<std::int64_t> kernel, outSpatial, rowStride, ls, ks;

    // The patch matrix's rows as a row-major array: its sizes and byte strides.
    std::vector<std::int64_t> rowSizes() const
    {
        std::vector<std::int64_t> sizes{N};
        sizes.insert(sizes.end(), outSpatial.begin(), outSpatial.end());
        return sizes;
    }
    std::vector<std::int64_t> rowStrides() const
    {
        std::vector<std::int64_t> out{batchStride};
        out.insert(out.end(), rowStride.begin(), rowStride.end());
        return out;
    }
};

Im2col im2colOf(const Operation& op, const TensorRef& lhs, const TensorRef& rhs, const TensorRef& out)
{
    Im2col c;
    const int rank = lhs.type.rank();
    const auto* numbers = op.attributes.find("dimension_numbers");
    if (!numbers || numbers->kind != Attribute::Kind::List || numbers->items.size() != 3)
        lowerFail("missing dimension numbers");
    c.L = detail::convLayout(numbers->items[0], 'b', 'f', rank);
    c.K = detail::convLayout(numbers->items[1], 'i', 'o', rank);
    c.O = detail::convLayout(numbers->items[2], 'b', 'f', rank);
    const auto* batchGroups = op.attributes.find("batch_group_count");
    if (batchGroups && batchGroups->integer != 1)
        lowerFail("convolutions with batch_group_count > 1 have no lowering yet");
    const auto* groupCount = op.attributes.find("feature_group_count");
    c.G = groupCount ? groupCount->integer : 1;
    c.S = static_cast<std::size_t>(rank - 2);
    c.strides = detail::flatIntsAttr(op, "window_strides", c.S, 1);
    c.padding = detail::flatIntsAttr(op, "padding", 2 * c.S, 0);
    c.lhsDil = detail::flatIntsAttr(op, "lhs_dilation", c.S, 1);
    c.rhsDil = detail::flatIntsAttr(op, "rhs_dilation", c.S, 1);
    c.reversal = detail::flatIntsAttr(op, "window_reversal", c.S, 0);
    c.N = at(lhs.type, c.L.batch);
    const std::int64_t C = at(lhs.type, c.L.feature), F = at(rhs.type, c.K.feature);
    if (c.G < 1 || C % c.G != 0 || F % c.G != 0 || at(rhs.type, c.K.batch) != C / c.G)
        lowerFail("feature_group_count does not divide the input and output features");
    c.Cg = C / c.G; // each group: Cg input features to Fg output features
    c.Fg = F / c.G;
    c.kernel.resize(c.S);
    c.outSpatial.resize(c.S);
    c.positions = c.N;
    std::int64_t kernelCount = 1;
    for (std::size_t s = 0; s < c.S; ++s) {
        c.kernel[s] = at(rhs.type, c.K.spatial[s]);
        c.outSpatial[s] = at(out.type, c.O.spatial[s]);
        c.positions *= c.outSpatial[s];
        kernelCount *= c.kernel[s];
    }
    c.width = kernelCount * c.Cg;
    // Packed (f16/bf16) operands are widened by the moves that gather them.
    c.ls = byteStrides(lhs.type.shape, lhs.elementBytes);
    c.ks = byteStrides(rhs.type.shape, rhs.elementBytes);
    c.rowStride.resize(c.S);
    std::int64_t stride = c.width * 4;
    for (int s = static_cast<int>(c.S) - 1; s >= 0; --s) {
        c.rowStride[static_cast<std::size_t>(s)] = stride;
        stride *= c.outSpatial[static_cast<std::size_t>(s)];
    }
    c.batchStride = stride;
    return c;
}

// Group g's patches of the rows in `slab` (of rowSizes()), gathered from lhs into VMEM at `base` (the slab's
// first row), which holds zeros where the window reads padding: one strided move per kernel position.
void gatherPatches(ProgramWriter& w, DmaStream& stream, std::uint64_t base, const Im2col& c,
                   const TensorRef& lhs, std::int64_t g, const Slab& slab)
{
    const std::int64_t channel = g * c.Cg * c.ls[static_cast<std::size_t>(c.L.feature)];
    forEach(c.kernel, [&](const std::vector<std::int64_t>& k, std::int64_t column) {
        const auto batch = restrictTo(identityProgression(c.N), slab.lo[0], slab.hi[0]);
        if (batch.count == 0)
            return;
        std::vector<MoveDim> dims = {{batch.count, c.ls[static_cast<std::size_t>(c.L.batch)], c.batchStride}};
        std::int64_t src = channel + batch.i0 * c.ls[static_cast<std::size_t>(c.L.batch)];
        std::int64_t dst = column * c.Cg * 4 + (batch.o0 - slab.lo[0]) * c.batchStride;
        for (std::size_t s = 0; s < c.S; ++s) {
            const auto kk = c.reversal[s] ? c.kernel[s] - 1 - k[s] : k[s];
            const auto inSpatial = c.ls[static_cast<std::size_t>(c.L.spatial[s])];
            const auto all = progression(c.outSpatial[s], at(lhs.type, c.L.spatial[s]), c.strides[s],
                                         kk * c.rhsDil[s] - c.padding[2 * s], c.lhsDil[s]);
            const auto p = restrictTo(all, slab.lo[s + 1], slab.hi[s + 1]);
            if (p.count == 0)
                return;
            dims.push_back({p.count, p.iStep * inSpatial, p.oStep * c.rowStride[s]});
            src += p.i0 * inSpatial;
            dst += (p.o0 - slab.lo[s + 1]) * c.rowStride[s];
        }
        dims.push_back({c.Cg, c.ls[static_cast<std::size_t>(c.L.feature)], 4});
        w.move(stream, isa::Space::Vmem, base + static_cast<std::uint64_t>(dst), isa::Space::Hbm,
               lhs.address + static_cast<std::uint64_t>(src), dims, lhs.widening());
    });
}

// Group g's kernel as a [kernel positions x Cg, Fg] matrix, rows in the patch columns' order, moved to
// `dst` in `space`.
void moveKernelMatrix(ProgramWriter& w, DmaStream& stream, isa::Space space, std::uint64_t dst,
                      const Im2col& c, const TensorRef& rhs, std::int64_t g)
{
    std::vector<MoveDim> kdims(c.S);
    std::int64_t kstride = c.Cg * c.Fg * 4;
    for (int s = static_cast<int>(c.S) - 1; s >= 0; --s) {
        const auto u = static_cast<std::size_t>(s);
        kdims[u] = {c.kernel[u], c.ks[static_cast<std::size_t>(c.K.spatial[u])], kstride};
        kstride *= c.kernel[u];
    }
    kdims.push_back({c.Cg, c.ks[static_cast<std::size_t>(c.K.batch)], c.Fg * 4});
    kdims.push_back({c.Fg, c.ks[static_cast<std::size_t>(c.K.feature)], 4});
    w.move(stream, space, dst, isa::Space::Hbm,
           rhs.address + static_cast<std::uint64_t>(g * c.Fg * c.ks[static_cast<std::size_t>(c.K.feature)]),
           kdims, rhs.widening());
}

void zero(ProgramWriter& w, std::uint64_t address, std::uint64_t bytes)
{
    w.fill("v15", address, bytes);
}

// Whether some window reads padding or a dilation hole: only then has the patch matrix elements no gather
// writes, which must be zero (a 1x1 or "valid" convolution writes every one).
bool readsPadding(const Im2col& c, const TensorRef& lhs)
{
    bool holes = false;
    forEach(c.kernel, [&](const std::vector<std::int64_t>& k, std::int64_t) {
        for (std::size_t s = 0; s < c.S; ++s) {
            const auto kk = c.reversal[s] ? c.kernel[s] - 1 - k[s] : k[s];
            holes |= progression(c.outSpatial[s], at(lhs.type, c.L.spatial[s]), c.strides[s],
                                 kk * c.rhsDil[s] - c.padding[2 * s], c.lhsDil[s])
                         .count != c.outSpatial[s];
        }
    });
    return holes;
}

} // namespace

void lowerConvolution(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                      const TensorRef& out)
{
    const auto& lhs = in[0];
    const auto& rhs = in[1];
    const auto c = im2colOf(op, lhs, rhs, out);
    const int rank = lhs.type.rank();
    const auto os = byteStrides(out.type.shape, out.elementBytes); // a packed result is narrowed on its way
    const auto S = c.S;
    // The product [N * out positions, Fg] is the result itself when there is one group and the result is laid
    // out [b, spatial..., f]; otherwise each group's product is moved into its features of the result.
    bool direct = c.G == 1 && c.O.batch == 0 && c.O.feature == rank - 1;
    for (std::size_t s = 0; s < S; ++s)
        direct &= c.O.spatial[s] == static_cast<std::int64_t>(s) + 1;
    const auto patchesBytes = static_cast<std::uint64_t>(c.positions * c.width * 4);
    const auto kernelBytes = static_cast<std::uint64_t>(c.width * c.Fg * 4);
    const auto aligned = [](std::uint64_t bytes) {
        return (std::max<std::uint64_t>(bytes, 1) + 4095) / 4096 * 4096;
    };
    const bool holes = readsPadding(c, lhs);
    for (std::int64_t g = 0; g < c.G; ++g) {
        w.beginKernel();
        w.bundle("vbcast v15, 0");
        TensorRef patches, matrix;
        const auto hbmOperands = [&] {
            patches = {w.hbmBuffer("conv_patches", patchesBytes, "f32", {c.positions, c.width}),
                       {{c.positions, c.width}, ElementType::F32},
                       {}};
            matrix = {w.hbmBuffer("conv_kernel", kernelBytes, "f32", {c.width, c.Fg}),
                      {{c.width, c.Fg}, ElementType::F32},
                      {}};
        };
        const Slab whole{std::vector<std::int64_t>(S + 1, 0), c.rowSizes(), 0, patchesBytes, 0};
        if (aligned(patchesBytes) + aligned(kernelBytes) <= w.vmemAvailable()) {
            // The patch matrix and the kernel matrix both in VMEM, then to HBM for the MXU kernel.
            const auto patchesV = w.vmem(patchesBytes, "the convolution's patch matrix");
            if (holes)
                zero(w, patchesV, patchesBytes);
            auto gather = w.stream();
            gatherPatches(w, gather, patchesV, c, lhs, g, whole);
            const auto kernelV = w.vmem(kernelBytes, "the convolution's kernel matrix");
            moveKernelMatrix(w, gather, isa::Space::Vmem, kernelV, c, rhs, g);
            w.waitAll(gather);
            hbmOperands();
            auto spill = w.stream();
            if (patchesBytes > 0)
                w.dma(spill, isa::Space::Hbm, patches.address, isa::Space::Vmem, patchesV, patchesBytes);
            if (kernelBytes > 0)
                w.dma(spill, isa::Space::Hbm, matrix.address, isa::Space::Vmem, kernelV, kernelBytes);
            w.waitAll(spill);
        } else {
            // Larger than VMEM: the kernel matrix is gathered HBM to HBM, and the patch matrix is built in
            // slabs of rows that fit (a run of batches, or of rows of one spatial dimension), each zeroed,
            // gathered and sent to its rows in HBM.
            hbmOperands();
            auto weights = w.stream();
            moveKernelMatrix(w, weights, isa::Space::Hbm, matrix.address, c, rhs, g);
            const std::uint64_t budget = w.vmemAvailable() / 4096 * 4096;
            const auto staging = w.vmem(budget, "a slab of the convolution's patch matrix");
            auto gather = w.stream();
            auto spill = w.stream();
            forEachSlab(c.rowSizes(), c.rowStrides(), budget, 0, "a convolution's patch matrix",
                        [&](const Slab& slab) {
                            if (holes)
                                zero(w, staging, slab.bytes);
                            gatherPatches(w, gather, staging, c, lhs, g, slab);
                            w.waitAll(gather);
                            w.dma(spill, isa::Space::Hbm,
                                  patches.address + static_cast<std::uint64_t>(slab.offset), isa::Space::Vmem,
                                  staging, slab.bytes);
                            w.waitAll(spill); // the slab's staging is the next slab's
                        });
            w.waitAll(weights);
        }
        // Written by the MXU kernel into the result itself (narrowed there if it is packed), or as f32 into a
        // buffer the group's features are moved from.
        const TensorRef product =
            direct ? TensorRef{out.address, {{c.positions, c.Fg}, out.type.element}, {}, out.elementBytes}
                   : TensorRef{w.hbmBuffer("conv_product", static_cast<std::uint64_t>(c.positions * c.Fg * 4),
                                           "f32", {c.positions, c.Fg}),
                               {{c.positions, c.Fg}, ElementType::F32},
                               {}};
        Operation dot;
        dot.kind = OpKind::Dot;
        dot.resultTypes = {product.type};
        w.beginKernel(); // the patch and kernel copies in VMEM are spent
        lowerDot(w, dot, {patches, matrix}, product);
        if (direct)
            return;
        // [N, spatial..., Fg] into the group's features of the result, HBM to HBM.
        std::vector<MoveDim> m = {{c.N, c.positions / std::max<std::int64_t>(c.N, 1) * c.Fg * 4,
                                   os[static_cast<std::size_t>(c.O.batch)]}};
        std::int64_t ps = c.Fg * 4;
        std::vector<MoveDim> sp(S);
        for (int s = static_cast<int>(S) - 1; s >= 0; --s) {
            const auto u = static_cast<std::size_t>(s);
            sp[u] = {c.outSpatial[u], ps, os[static_cast<std::size_t>(c.O.spatial[u])]};
            ps *= c.outSpatial[u];
        }
        m.insert(m.end(), sp.begin(), sp.end());
        m.push_back({c.Fg, 4, os[static_cast<std::size_t>(c.O.feature)]});
        auto back = w.stream();
        w.move(back, isa::Space::Hbm,
               out.address + static_cast<std::uint64_t>(g * c.Fg * os[static_cast<std::size_t>(c.O.feature)]),
               isa::Space::Hbm, product.address, m, out.narrowing());
        w.waitAll(back);
    }
}

} // namespace xps::shlo::lower
