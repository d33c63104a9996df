// Data-movement kernels: the result is assembled in VMEM by DMA descriptors that read the operand with
// the strides the op implies (a stride of 0 repeats an element, a negative one walks backwards), then
// leaves for HBM in one transfer. ProgramWriter::move merges what is contiguous, so a broadcast of a row
// or a slice of whole rows is a handful of descriptors; a transpose of the innermost dimension is one per
// element row. A result larger than VMEM is assembled and sent in slabs (lower_slabs.h). VMEM holds the
// result with 4-byte elements; a packed (f16/bf16) operand is widened on its way in and a packed result
// narrowed on its way out, so only the HBM side's strides and offsets depend on the element's bytes.

#include "stablehlo/eval_ops.h"
#include "stablehlo/lower_kernels.h"
#include "stablehlo/lower_slabs.h"

namespace xps::shlo::lower {

namespace {

// Staging in VMEM for a movement done in slabs, and its two streams (in and back).
struct SlabStaging
{
    std::uint64_t address = 0, capacity = 0;
    DmaStream in, back;
};

// One strided view of `x` from `src` (`dims`: its sizes, source strides in x's HBM bytes and the result's
// strides in VMEM's) written into `out` from `outOffset` (VMEM bytes of the result) in slabs (forEachSlab:
// at or inside dimension `minDim`), each contiguous in the result, so it leaves in one transfer.
void moveInSlabs(ProgramWriter& w, const TensorRef& x, std::uint64_t src, const std::vector<MoveDim>& dims,
                 const std::vector<std::int64_t>& outStrides, const TensorRef& out, std::uint64_t outOffset,
                 std::size_t minDim, SlabStaging& staging)
{
    std::vector<std::int64_t> sizes(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d)
        sizes[d] = dims[d].size;
    forEachSlab(sizes, outStrides, staging.capacity, minDim, "a data movement", [&](const Slab& slab) {
        const auto k = slab.dimension;
        std::int64_t srcOffset = 0;
        for (std::size_t d = 0; d <= k; ++d)
            srcOffset += slab.lo[d] * dims[d].srcStride;
        std::vector<MoveDim> part(dims.begin() + static_cast<std::ptrdiff_t>(k), dims.end());
        part.front().size = slab.hi[k] - slab.lo[k];
        w.move(staging.in, isa::Space::Vmem, staging.address, isa::Space::Hbm,
               static_cast<std::uint64_t>(static_cast<std::int64_t>(src) + srcOffset), part, x.widening());
        w.waitAll(staging.in);
        w.dma(staging.back, isa::Space::Hbm,
              out.address + out.hbmBytes(outOffset + static_cast<std::uint64_t>(slab.offset)),
              isa::Space::Vmem, staging.address, slab.bytes, 1, 0, 0, {}, out.narrowing());
        w.waitAll(staging.back); // the slab's staging is the next slab's
    });
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
        w.move(s, isa::Space::Vmem, staging, isa::Space::Hbm, src, dims, x.widening());
        w.waitAll(s);
        auto back = w.stream();
        if (bytes > 0)
            w.dma(back, isa::Space::Hbm, out.address, isa::Space::Vmem, staging, bytes, 1, 0, 0, {},
                  out.narrowing());
        w.waitAll(back);
        return;
    }
    SlabStaging staging{w.vmem(budget, "a slab of a data movement"), budget, w.stream(), w.stream()};
    moveInSlabs(w, x, src, dims, outStrides, out, 0, 0, staging);
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
        const auto xs = byteStrides(x.type.shape, x.elementBytes);
        std::vector<MoveDim> m(outStrides.size());
        for (std::size_t d = 0; d < m.size(); ++d)
            m[d] = {x.type.shape[d], xs[d], outStrides[d]};
        fn(x, m, static_cast<std::uint64_t>(offset * outStrides[dim]), dim);
        offset += x.type.shape[dim];
    }
}

// Writes v0 over `bytes` of VMEM from `address` (a register at a time).
void fill(ProgramWriter& w, std::uint64_t address, std::uint64_t bytes)
{
    w.fill("v0", address, bytes);
}

Slab wholeSlab(const std::vector<std::int64_t>& shape, std::uint64_t bytes)
{
    Slab slab;
    slab.lo.assign(shape.size(), 0);
    slab.hi = shape;
    slab.bytes = bytes;
    return slab;
}

// Pad's operand elements that land in `slab` of the result, moved to `staging` (the slab's first byte).
// Along each dimension operand element i lands at low + i * (interior + 1): a progression over the result
// (stride 1, offset -low, base dilation interior + 1), negative padding cropping the ones before 0 or past
// the end.
void padInto(ProgramWriter& w, DmaStream& s, std::uint64_t staging, const Operation& op, const TensorRef& x,
             const TensorRef& out, const Slab& slab)
{
    const auto low = detail::intsAttr(op, "edge_padding_low");
    const auto interior = detail::intsAttr(op, "interior_padding");
    const auto xs = byteStrides(x.type.shape, x.elementBytes);
    const auto outStrides = byteStrides(out.type.shape);
    const auto rank = out.type.shape.size();
    std::vector<MoveDim> m(rank);
    std::int64_t dst = 0, src = 0;
    for (std::size_t d = 0; d < rank; ++d) {
        const auto all = progression(out.type.shape[d], x.type.shape[d], 1, -low[d], interior[d] + 1);
        const auto p = restrictTo(all, slab.lo[d], slab.hi[d]);
        if (p.count == 0)
            return; // the slab is all padding
        m[d] = {p.count, p.iStep * xs[d], p.oStep * outStrides[d]};
        src += p.i0 * xs[d];
        dst += (p.o0 - slab.lo[d]) * outStrides[d];
    }
    w.move(s, isa::Space::Vmem, staging + static_cast<std::uint64_t>(dst), isa::Space::Hbm,
           x.address + static_cast<std::uint64_t>(src), m, x.widening());
}

// Concatenate and pad: the result is assembled in VMEM whole (several views, or a fill and a view), then
// leaves in one transfer; larger than VMEM, a concatenation moves each input in slabs of its own, and a pad
// fills and assembles one slab of its result at a time.
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
                moveInSlabs(w, x, x.address, m, outStrides, out, at, dim, staging);
            });
        return;
    }
    if (op.kind == OpKind::Pad && bytes > budget && rank > 0) {
        // Slabs of the result, each filled with the padding value and then given the operand's elements
        // that land in it.
        SlabStaging staging{w.vmem(budget, "a slab of a data movement"), budget, w.stream(), w.stream()};
        broadcastScalar(w, in[1], 0);
        forEachSlab(out.type.shape, outStrides, budget, 0, "a pad", [&](const Slab& slab) {
            fill(w, staging.address, slab.bytes);
            padInto(w, staging.in, staging.address, op, in[0], out, slab);
            w.waitAll(staging.in);
            w.dma(staging.back, isa::Space::Hbm,
                  out.address + out.hbmBytes(static_cast<std::uint64_t>(slab.offset)), isa::Space::Vmem,
                  staging.address, slab.bytes, 1, 0, 0, {}, out.narrowing());
            w.waitAll(staging.back); // the slab's staging is the next slab's
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
                w.move(s, isa::Space::Vmem, staging + at, isa::Space::Hbm, x.address, m, x.widening());
            });
        break;
    case OpKind::Pad: {
        // Every element starts as the padding value; the operand's elements are then placed among them.
        broadcastScalar(w, in[1], 0);
        fill(w, staging, bytes);
        padInto(w, s, staging, op, in[0], out, wholeSlab(out.type.shape, bytes));
        break;
    }
    default: lowerFail(std::string(opName(op.kind)) + " is not a data movement");
    }
    w.waitAll(s);
    auto back = w.stream();
    if (bytes > 0)
        w.dma(back, isa::Space::Hbm, out.address, isa::Space::Vmem, staging, bytes, 1, 0, 0, {},
              out.narrowing());
    w.waitAll(back);
}

// A broadcast of an operand of R values along the result's trailing dimensions (C elements each, a
// multiple of a 128-lane row): each value is one scalar load and one vector broadcast, stored over its C
// elements (4 KiB stores in order, each value's last one overlapping the next value's first, which that
// value's stores then overwrite), and the result leaves for HBM in one transfer. A DMA view reading the
// operand with stride 0 moved 4 bytes a descriptor row: 4,454 cycles for 128 x 256 where this takes about
// 700. Returns false (and writes nothing) for any other broadcast, or one too large for SMEM or VMEM.
bool broadcastColumns(ProgramWriter& w, const Operation& op, const TensorRef& x, const TensorRef& out)
{
    constexpr std::int64_t kRowElements = 128, kMaxValues = 2048; // 8 KiB of SMEM
    const auto dims = detail::intsAttr(op, "broadcast_dimensions");
    const std::size_t k = x.type.shape.size();
    if (k == 0 || dims.size() != k || k > out.type.shape.size())
        return false;
    for (std::size_t i = 0; i < k; ++i)
        if (dims[i] != static_cast<std::int64_t>(i) || x.type.shape[i] != out.type.shape[i])
            return false;
    const std::int64_t values = x.type.elementCount(),
                       columns = out.type.elementCount() / std::max<std::int64_t>(values, 1);
    const std::int64_t bytes = out.type.elementCount() * 4;
    if (values == 0 || values > kMaxValues || columns % kRowElements != 0 ||
        bytes + kVregBytes > static_cast<std::int64_t>(w.vmemCapacity()) / 4)
        return false;
    auto s = w.stream();
    w.dma(s, isa::Space::Smem, 0, isa::Space::Hbm, x.address,
          x.hbmBytes(static_cast<std::uint64_t>(values * 4)), 1, 0, 0, {}, x.widening());
    w.waitAll(s);
    const std::uint64_t staging =
        w.vmem(static_cast<std::uint64_t>(bytes + kVregBytes), "a column broadcast");
    const std::int64_t stores = (columns * 4 + kVregBytes - 1) / kVregBytes;
    for (std::int64_t v = 0; v < values; ++v) {
        // Seven values in flight, each in its own registers, so the packer overlaps their latencies; the
        // stores stay in order (each overwrites the previous value's overlap).
        const std::string scalar = "s" + std::to_string(3 + v % 7), vector = "v" + std::to_string(v % 7);
        w.bundle("sld " + scalar + ", [" + std::to_string(v * 4) + "]");
        w.bundle("vbcast " + vector + ", " + scalar);
        for (std::int64_t j = 0; j < stores; ++j)
            w.bundle("vst " + vector + ", [" +
                     std::to_string(staging + static_cast<std::uint64_t>(v * columns * 4 + j * kVregBytes)) +
                     "]");
    }
    auto back = w.stream();
    w.dma(back, isa::Space::Hbm, out.address, isa::Space::Vmem, staging, static_cast<std::uint64_t>(bytes), 1,
          0, 0, {}, out.narrowing());
    w.waitAll(back);
    return true;
}

} // namespace

void lowerMovement(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                   const TensorRef& out)
{
    if (op.kind == OpKind::BroadcastInDim && in[0].type.shape.empty()) {
        lowerSplat(w, in[0], out);
        return;
    }
    if (op.kind == OpKind::BroadcastInDim && broadcastColumns(w, op, in[0], out))
        return;
    const auto outStrides = byteStrides(out.type.shape);
    const auto rank = out.type.shape.size();
    // Broadcast, transpose, slice and reverse read their operand through one strided view; concatenate and
    // pad assemble their result from several views, or a fill and a view. Each is tiled to VMEM.
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
        const auto inStrides = byteStrides(in[0].type.shape, in[0].elementBytes);
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
        const auto inStrides = byteStrides(in[0].type.shape, in[0].elementBytes);
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
        const auto inStrides = byteStrides(in[0].type.shape, in[0].elementBytes);
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
        const auto inStrides = byteStrides(in[0].type.shape, in[0].elementBytes);
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
