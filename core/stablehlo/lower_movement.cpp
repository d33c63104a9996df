// Data-movement kernels: the result is assembled in VMEM by DMA descriptors that read the operand with
// the strides the op implies (a stride of 0 repeats an element, a negative one walks backwards), then
// leaves for HBM in one transfer. ProgramWriter::move merges what is contiguous, so a broadcast of a row
// or a slice of whole rows is a handful of descriptors; a transpose of the innermost dimension is one per
// element row.

#include "stablehlo/eval_ops.h"
#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

// Staging in VMEM for a movement done in slabs, and its two streams (in and back).
struct SlabStaging
{
    std::uint64_t address = 0, capacity = 0;
    DmaStream in, back;
};

// One strided view of `x` (`dims`: its sizes, source strides and the result's strides) written into the
// result at `outAddress` in slabs: a run of indices of one dimension k, at fixed indices of the dimensions
// before it, with everything after it whole, so a slab is contiguous in the result and leaves in one
// transfer. k is the outermost dimension, not before `minDim`, one index of which fits the staging.
void moveInSlabs(ProgramWriter& w, std::uint64_t src, const std::vector<MoveDim>& dims,
                 const std::vector<std::int64_t>& outStrides, std::uint64_t outAddress, std::size_t minDim,
                 SlabStaging& staging)
{
    const std::size_t rank = dims.size();
    std::size_t k = std::min(minDim, rank - 1);
    while (k + 1 < rank && static_cast<std::uint64_t>(outStrides[k]) > staging.capacity)
        ++k;
    const auto slabStride = static_cast<std::uint64_t>(outStrides[k]); // bytes of one index of dimension k
    if (slabStride > staging.capacity)
        lowerFail("a data movement whose innermost dimension alone needs " + std::to_string(slabStride) +
                  " bytes of VMEM; " + std::to_string(staging.capacity) + " are free");
    const std::int64_t run =
        std::min<std::int64_t>(dims[k].size, static_cast<std::int64_t>(staging.capacity / slabStride));
    std::int64_t leading = 1; // index combinations of the dimensions before k
    for (std::size_t d = 0; d < k; ++d)
        leading *= dims[d].size;
    for (std::int64_t l = 0; l < leading; ++l) {
        std::int64_t srcOffset = 0, dstOffset = 0;
        for (std::int64_t rest = l, d = static_cast<std::int64_t>(k) - 1; d >= 0; --d) {
            const auto i = rest % dims[static_cast<std::size_t>(d)].size;
            rest /= dims[static_cast<std::size_t>(d)].size;
            srcOffset += i * dims[static_cast<std::size_t>(d)].srcStride;
            dstOffset += i * outStrides[static_cast<std::size_t>(d)];
        }
        for (std::int64_t first = 0; first < dims[k].size; first += run) {
            const std::int64_t n = std::min(run, dims[k].size - first);
            std::vector<MoveDim> slab(dims.begin() + static_cast<std::ptrdiff_t>(k), dims.end());
            slab.front().size = n;
            w.move(staging.in, isa::Space::Vmem, staging.address, isa::Space::Hbm,
                   static_cast<std::uint64_t>(static_cast<std::int64_t>(src) + srcOffset +
                                              first * dims[k].srcStride),
                   slab);
            w.waitAll(staging.in);
            w.dma(staging.back, isa::Space::Hbm,
                  outAddress + static_cast<std::uint64_t>(dstOffset + first * outStrides[k]),
                  isa::Space::Vmem, staging.address, static_cast<std::uint64_t>(n) * slabStride);
            w.waitAll(staging.back); // the slab's staging is the next slab's
        }
    }
}

// The result of a movement that reads one operand with one strided view (`dims`, one per result dimension,
// each writing with the result's own strides): assembled in VMEM and sent to HBM whole when it fits, else
// in slabs that do (moveInSlabs).
void moveByView(ProgramWriter& w, const TensorRef& x, std::int64_t srcBase, const std::vector<MoveDim>& dims,
                const TensorRef& out)
{
    const auto outStrides = byteStrides(out.type.shape);
    const std::uint64_t bytes = static_cast<std::uint64_t>(out.type.elementCount()) * 4;
    const std::uint64_t budget = w.vmemAvailable() / 4096 * 4096; // VMEM is handed out in 4 KiB
    const auto src = static_cast<std::uint64_t>(static_cast<std::int64_t>(x.address) + srcBase);
    if (bytes <= budget || dims.empty()) {
        const auto staging = w.vmem(bytes, "the result of a data movement");
        auto s = w.stream();
        w.move(s, isa::Space::Vmem, staging, isa::Space::Hbm, src, dims);
        w.waitAll(s);
        auto back = w.stream();
        if (bytes > 0)
            w.dma(back, isa::Space::Hbm, out.address, isa::Space::Vmem, staging, bytes);
        w.waitAll(back);
        return;
    }
    SlabStaging staging{w.vmem(budget, "a slab of a data movement"), budget, w.stream(), w.stream()};
    moveInSlabs(w, src, dims, outStrides, out.address, 0, staging);
}

// Each input of a concatenation as a view into the result: fn(input, its dims with the result's strides,
// the byte offset of its part of the result, the concatenated dimension).
template <typename Fn>
void forEachConcatenated(const Operation& op, const std::vector<TensorRef>& in,
                         const std::vector<std::int64_t>& outStrides, Fn&& fn)
{
    const auto dim = static_cast<std::size_t>(op.attributes.find("dimension")->integer);
    std::int64_t offset = 0;
    for (const auto& x : in) {
        const auto xs = byteStrides(x.type.shape);
        std::vector<MoveDim> m(outStrides.size());
        for (std::size_t d = 0; d < m.size(); ++d)
            m[d] = {x.type.shape[d], xs[d], outStrides[d]};
        fn(x, m, static_cast<std::uint64_t>(offset * outStrides[dim]), dim);
        offset += x.type.shape[dim];
    }
}

// Concatenate and pad: the result is assembled in VMEM whole (several views, or a fill and a view), then
// leaves in one transfer; a concatenation larger than VMEM moves each input in slabs instead.
void lowerAssembled(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                    const TensorRef& out)
{
    const auto outStrides = byteStrides(out.type.shape);
    const std::uint64_t bytes = static_cast<std::uint64_t>(out.type.elementCount()) * 4;
    const auto rank = out.type.shape.size();
    const std::uint64_t budget = w.vmemAvailable() / 4096 * 4096;
    if (op.kind == OpKind::Concatenate && bytes > budget && rank > 0) {
        // Each input in slabs of its own, into its part of the result: slabs at or inside the concatenated
        // dimension, where the input's part of a slab is contiguous in the result.
        SlabStaging staging{w.vmem(budget, "a slab of a data movement"), budget, w.stream(), w.stream()};
        forEachConcatenated(
            op, in, outStrides,
            [&](const TensorRef& x, const std::vector<MoveDim>& m, std::uint64_t at, std::size_t dim) {
                moveInSlabs(w, x.address, m, outStrides, out.address + at, dim, staging);
            });
        return;
    }
    const auto staging = w.vmem(bytes, "the result of a data movement");
    auto s = w.stream();
    switch (op.kind) {
    case OpKind::Concatenate:
        forEachConcatenated(
            op, in, outStrides,
            [&](const TensorRef& x, const std::vector<MoveDim>& m, std::uint64_t at, std::size_t) {
                w.move(s, isa::Space::Vmem, staging + at, isa::Space::Hbm, x.address, m);
            });
        break;
    case OpKind::Pad: {
        const auto low = detail::intsAttr(op, "edge_padding_low");
        const auto high = detail::intsAttr(op, "edge_padding_high");
        const auto interior = detail::intsAttr(op, "interior_padding");
        // Every element starts as the padding value; the operand's elements are then placed among them.
        broadcastScalar(w, in[1], 0);
        for (std::uint64_t offset = 0; offset < bytes; offset += 4096)
            w.bundle("vst v0, [" + std::to_string(staging + offset) + "]");
        // Operand element i lands at low + i * (interior + 1); negative padding crops the ones before 0 or
        // past the end, so each dimension keeps one run of them.
        const auto xs = byteStrides(in[0].type.shape);
        std::vector<MoveDim> m(rank);
        std::int64_t base = 0, src = 0;
        for (std::size_t d = 0; d < rank; ++d) {
            const std::int64_t step = interior[d] + 1, n = in[0].type.shape[d], size = out.type.shape[d];
            const std::int64_t first = low[d] < 0 ? (-low[d] + step - 1) / step : 0;
            const std::int64_t last =
                size - 1 - low[d] >= 0 ? std::min(n - 1, (size - 1 - low[d]) / step) : -1;
            m[d] = {std::max<std::int64_t>(last - first + 1, 0), xs[d], outStrides[d] * step};
            src += first * xs[d];
            base += (low[d] + first * step) * outStrides[d];
        }
        w.move(s, isa::Space::Vmem, staging + static_cast<std::uint64_t>(base), isa::Space::Hbm,
               in[0].address + static_cast<std::uint64_t>(src), m);
        break;
    }
    default: lowerFail(std::string(opName(op.kind)) + " is not a data movement");
    }
    w.waitAll(s);
    auto back = w.stream();
    if (bytes > 0)
        w.dma(back, isa::Space::Hbm, out.address, isa::Space::Vmem, staging, bytes);
    w.waitAll(back);
}

} // namespace

void lowerMovement(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                   const TensorRef& out)
{
    if (op.kind == OpKind::BroadcastInDim && in[0].type.shape.empty()) {
        lowerSplat(w, in[0], out);
        return;
    }
    const auto outStrides = byteStrides(out.type.shape);
    const auto rank = out.type.shape.size();
    // Broadcast, transpose, slice and reverse read their operand through one strided view, and are tiled
    // to VMEM; concatenate and pad assemble their whole result in VMEM.
    const auto moveWhole = [&](const TensorRef& x, std::int64_t srcBase, const std::vector<MoveDim>& dims) {
        moveByView(w, x, srcBase, dims, out);
    };
    if (op.kind == OpKind::Concatenate || op.kind == OpKind::Pad) {
        lowerAssembled(w, op, in, out);
        return;
    }
    switch (op.kind) {
    case OpKind::BroadcastInDim: {
        const auto dims = detail::intsAttr(op, "broadcast_dimensions");
        const auto inStrides = byteStrides(in[0].type.shape);
        std::vector<MoveDim> m(rank);
        for (std::size_t d = 0; d < rank; ++d)
            m[d] = {out.type.shape[d], 0, outStrides[d]};
        for (std::size_t i = 0; i < dims.size(); ++i)
            if (in[0].type.shape[i] != 1)
                m[static_cast<std::size_t>(dims[i])].srcStride = inStrides[i];
        moveWhole(in[0], 0, m);
        break;
    }
    case OpKind::Transpose: {
        const auto perm = detail::intsAttr(op, "permutation");
        const auto inStrides = byteStrides(in[0].type.shape);
        std::vector<MoveDim> m(rank);
        for (std::size_t d = 0; d < rank; ++d)
            m[d] = {out.type.shape[d], inStrides[static_cast<std::size_t>(perm[d])], outStrides[d]};
        moveWhole(in[0], 0, m);
        break;
    }
    case OpKind::Slice: {
        const auto start = detail::intsAttr(op, "start_indices");
        auto strides = detail::intsAttr(op, "strides", false);
        if (strides.empty())
            strides.assign(rank, 1);
        const auto inStrides = byteStrides(in[0].type.shape);
        std::vector<MoveDim> m(rank);
        std::int64_t base = 0;
        for (std::size_t d = 0; d < rank; ++d) {
            m[d] = {out.type.shape[d], inStrides[d] * strides[d], outStrides[d]};
            base += start[d] * inStrides[d];
        }
        moveWhole(in[0], base, m);
        break;
    }
    case OpKind::Reverse: {
        const auto dims = detail::intsAttr(op, "dimensions");
        const auto inStrides = byteStrides(in[0].type.shape);
        std::vector<MoveDim> m(rank);
        std::int64_t base = 0;
        for (std::size_t d = 0; d < rank; ++d)
            m[d] = {out.type.shape[d], inStrides[d], outStrides[d]};
        for (const auto d : dims) {
            auto& md = m[static_cast<std::size_t>(d)];
            base += (md.size - 1) * md.srcStride;
            md.srcStride = -md.srcStride;
        }
        moveWhole(in[0], base, m);
        break;
    }
    default: lowerFail(std::string(opName(op.kind)) + " is not a data movement");
    }
}

} // namespace xps::shlo::lower
