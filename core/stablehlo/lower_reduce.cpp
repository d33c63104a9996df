// reduce with a one-op reducer: the input is laid out in VMEM with one row per result element and its
// reduced elements along the lanes (rows padded to 128 lanes with the op's identity), then each group of 8
// rows is combined chunk by chunk on the vector unit and across lanes on the cross-lane unit; the initial
// value joins last. The result's elements leave VMEM as one strided descriptor. reduce_window
// (lower_window.cpp) fills the same rows with its windows. A reduce whose rows do not fit VMEM runs in
// slabs of rows that do. A packed (f16/bf16) input is widened by the DMAs that bring it in, a packed result
// narrowed by the one that writes it back: no 4-byte copies in HBM.

#include <bit>
#include <limits>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {
// A VMEM address, or in a loop's body one relative to an offset register.
std::string at(std::uint64_t address, const char* offset = nullptr)
{
    return offset ? std::string(offset) + " + " + std::to_string(address) : std::to_string(address);
}

// In loop mode: whether `count` repetitions of a body advancing by `step` (and `step2`) bytes are worth a
// counted loop and fit its registers.
bool loopsOver(const ProgramWriter& w, std::int64_t count, std::int64_t step, std::int64_t step2 = 0)
{
    return w.loops() && !w.inLoop() && count >= 8 && ProgramWriter::loopFits(count, step) &&
           ProgramWriter::loopFits(count, step2);
}

} // namespace

OpKind reducerKind(const Operation& op)
{
    if (op.regions.size() != 1)
        lowerFail(std::string(opName(op.kind)) + " without a reducer");
    const auto& ops = op.regions[0].operations;
    if (op.operands.size() != 2)
        lowerFail(std::string(opName(op.kind)) + " with several inputs (an argmax) has no lowering yet");
    if (ops.size() != 2 || ops[0].operands.size() != 2 || ops[0].operands[0] > 1 || ops[0].operands[1] > 1 ||
        ops[1].operands.size() != 1 || ops[1].operands[0] != 2)
        lowerFail(std::string(opName(op.kind)) +
                  " has a lowering for a reducer of one add, maximum or minimum");
    const auto kind = ops[0].kind;
    if (kind != OpKind::Add && kind != OpKind::Maximum && kind != OpKind::Minimum)
        lowerFail(std::string(opName(op.kind)) + " with a " + std::string(opName(kind)) +
                  " reducer has no lowering yet");
    return kind;
}

float reducerIdentity(OpKind kind)
{
    return kind == OpKind::Add       ? 0.0f
           : kind == OpKind::Maximum ? -std::numeric_limits<float>::infinity()
                                     : std::numeric_limits<float>::infinity();
}

ReductionRows reductionRows(ProgramWriter& w, OpKind kind, std::int64_t rows, std::int64_t width)
{
    ReductionRows r;
    r.kind = kind;
    r.rows = rows;
    r.lanes = std::max<std::int64_t>((width + 127) / 128 * 128, 128);
    r.rowBytes = r.lanes * 4;
    r.groups = (rows + 7) / 8;
    r.staging = w.vmem(static_cast<std::uint64_t>(r.groups * 8 * r.rowBytes), "the rows of a reduction");
    r.results = w.vmem(static_cast<std::uint64_t>(r.groups * 4096), "the results of a reduction");
    // The reducer's identity in every lane, so padding changes nothing.
    w.bundle("vbcast v0, " + std::to_string(std::bit_cast<std::uint32_t>(reducerIdentity(kind))));
    w.fill("v0", r.staging, static_cast<std::uint64_t>(r.groups * 8 * r.rowBytes));
    return r;
}

// vmax, vmin and xlu.rmax give the other operand for a NaN (IEEE maximumNumber); StableHLO's maximum and
// minimum propagate it. A maximum or minimum reduction therefore keeps a NaN witness beside its values: v8
// holds NaN in each lane that saw one (the initial value's included) and -0 in the others, and the result
// adds it, as x + -0 is x for every x (-0 and the infinities included) and NaN + x is NaN. Without it a
// reduce over a NaN gave the largest number, hiding the NaN from a check. The NaN is the default one
// (docs/isa.md), where StableHLO's interpreter passes on the first NaN's payload.
namespace {

void startNanWitness(ProgramWriter& w)
{
    w.bundle("vbcast v6, 2147483648"); // -0, also min's sign mask (min(x) = -max(-x))
    w.bundle("vcmp.eq.f32 v9, v7, v7");
    w.bundle("vsel v10, v9, v6, v7"); // the initial value's witness, v7 being the initial value
}

// The witness v8 after one more register of elements, `x`; `first` starts it from the initial value's.
void witness(ProgramWriter& w, const std::string& x, bool first)
{
    w.bundle("vcmp.eq.f32 v9, " + x + ", " + x);
    w.bundle(std::string("vsel v8, v9, ") + (first ? "v10" : "v8") + ", " + x);
}

} // namespace

void combineRows(ProgramWriter& w, const ReductionRows& r, const TensorRef& init, const TensorRef& out,
                 DmaStream* results)
{
    broadcastScalar(w, init, 7);
    const bool extreme = r.kind != OpKind::Add;
    if (extreme)
        startNanWitness(w);
    const char* combine = r.kind == OpKind::Add       ? "vadd.f32"
                          : r.kind == OpKind::Maximum ? "vmax.f32"
                                                      : "vmin.f32";
    // In loop mode, one group an iteration: its rows through the loop's offset, its results through the
    // second.
    const bool looped = loopsOver(w, r.groups, 8 * r.rowBytes, 4096);
    if (looped)
        w.beginLoop(r.groups, 8 * r.rowBytes, 4096);
    for (std::int64_t g = 0; g < (looped ? 1 : r.groups); ++g) {
        for (std::int64_t c = 0; c < r.lanes / 128; ++c) {
            const auto address = r.staging + static_cast<std::uint64_t>(g * 8 * r.rowBytes + c * 512);
            w.bundle("vld.s " + v(c == 0 ? 1 : 2) + ", [" + at(address, looped ? w.offset() : nullptr) +
                     "], " + std::to_string(r.rowBytes));
            if (extreme)
                witness(w, v(c == 0 ? 1 : 2), c == 0);
            if (c > 0)
                w.bundle(std::string(combine) + " v1, v1, v2");
        }
        if (r.kind == OpKind::Add) {
            w.bundle("xlu.rsum.f32 v3, v1");
        } else if (r.kind == OpKind::Maximum) {
            w.bundle("xlu.rmax.f32 v3, v1");
        } else { // min(x) = -max(-x)
            w.bundle("vxor v1, v1, v6");
            w.bundle("xlu.rmax.f32 v3, v1");
            w.bundle("vxor v3, v3, v6");
        }
        w.bundle(std::string(combine) + " v4, v7, v3");
        if (extreme) { // a row's witness: -0 summed, or NaN
            w.bundle("xlu.rsum.f32 v5, v8");
            w.bundle("vadd.f32 v4, v4, v5");
        }
        w.bundle("vst v4, [" +
                 at(r.results + static_cast<std::uint64_t>(g * 4096), looped ? w.offset2() : nullptr) + "]");
    }
    if (looped)
        w.endLoop();
    DmaStream own = results ? DmaStream{} : w.stream();
    DmaStream& back = results ? *results : own;
    if (r.rows > 0)
        w.dma(back, isa::Space::Hbm, out.address, isa::Space::Vmem, r.results, 4,
              static_cast<std::uint64_t>(r.rows), 512, static_cast<std::uint64_t>(out.elementBytes), {},
              out.narrowing());
    w.waitAll(back);
}

bool fitsColumns(const ProgramWriter& w, std::int64_t outputs, std::int64_t width)
{
    const std::int64_t padded = std::max<std::int64_t>((outputs + 1023) / 1024 * 1024, 1024);
    return width > 0 && width <= static_cast<std::int64_t>(w.vmemCapacity()) / 2 / (padded * 4);
}

ReductionColumns reductionColumns(ProgramWriter& w, OpKind kind, std::int64_t outputs, std::int64_t width)
{
    ReductionColumns c;
    c.kind = kind;
    c.outputs = outputs;
    c.width = width;
    c.padded = std::max<std::int64_t>((outputs + 1023) / 1024 * 1024, 1024);
    c.staging = w.vmem(static_cast<std::uint64_t>(c.padded * width * 4), "the elements of a reduction");
    c.results = w.vmem(static_cast<std::uint64_t>(c.padded * 4), "the results of a reduction");
    return c;
}

void combineColumns(ProgramWriter& w, const ReductionColumns& c, const TensorRef& init, const TensorRef& out)
{
    broadcastScalar(w, init, 7);
    const bool extreme = c.kind != OpKind::Add;
    if (extreme)
        startNanWitness(w);
    const char* combine = c.kind == OpKind::Add       ? "vadd.f32"
                          : c.kind == OpKind::Maximum ? "vmax.f32"
                                                      : "vmin.f32";
    // In loop mode, a register of results an iteration (every address moves by 4 KiB).
    const bool looped = loopsOver(w, c.padded / 1024, 4096);
    const char* offset = looped ? w.offset() : nullptr;
    if (looped)
        w.beginLoop(c.padded / 1024, 4096);
    for (std::int64_t r = 0; r < (looped ? 1024 : c.padded); r += 1024) {
        w.bundle("vmov v1, v7");
        for (std::int64_t j = 0; j < c.width; ++j) {
            const auto address = c.staging + static_cast<std::uint64_t>((j * c.padded + r) * 4);
            w.bundle("vld v2, [" + at(address, offset) + "]");
            w.bundle(std::string(combine) + " v1, v1, v2");
            if (extreme)
                witness(w, "v2", j == 0);
        }
        if (extreme)
            w.bundle("vadd.f32 v1, v1, v8");
        w.bundle("vst v1, [" + at(c.results + static_cast<std::uint64_t>(r * 4), offset) + "]");
    }
    if (looped)
        w.endLoop();
    auto back = w.stream();
    w.dma(back, isa::Space::Hbm, out.address, isa::Space::Vmem, c.results,
          static_cast<std::uint64_t>(c.outputs * 4), 1, 0, 0, {}, out.narrowing());
    w.waitAll(back);
}

bool isSimpleReducer(const Operation& op)
{
    if (op.regions.size() != 1 || op.operands.size() != 2)
        return false;
    const auto& ops = op.regions[0].operations;
    return ops.size() == 2 && ops[0].operands.size() == 2 && ops[0].operands[0] <= 1 &&
           ops[0].operands[1] <= 1 && ops[1].operands.size() == 1 && ops[1].operands[0] == 2 &&
           (ops[0].kind == OpKind::Add || ops[0].kind == OpKind::Maximum || ops[0].kind == OpKind::Minimum);
}

namespace {

// Several inputs (argmax: values and indices) or a reducer beyond one add / maximum / minimum: one register
// block per input, and the reducer region itself lowered to vector code, applied in the interpreter's
// order (initial values, then every element).
void lowerReduceRegion(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                       const std::vector<TensorRef>& out)
{
    const std::size_t n = in.size() / 2;
    const auto& shape = in[0].type.shape;
    std::vector<bool> reduced(shape.size());
    for (const auto* a = op.attributes.find("dimensions"); const auto& item : a->items)
        reduced[static_cast<std::size_t>(item.integer)] = true;
    std::int64_t outputs = 1, width = 1;
    for (std::size_t d = 0; d < reduced.size(); ++d)
        (reduced[d] ? width : outputs) *= shape[d];
    if (!fitsColumns(w, outputs, width * static_cast<std::int64_t>(n)))
        lowerFail("a reduce this large with several inputs, over integers or with a general reducer has no "
                  "lowering yet");
    const std::int64_t padded = std::max<std::int64_t>((outputs + 1023) / 1024 * 1024, 1024);
    std::vector<std::uint64_t> staging;
    auto s = w.stream();
    for (std::size_t i = 0; i < n; ++i) {
        if (in[i].type.shape != shape)
            lowerFail("every input of reduce must have one shape");
        const auto xs = byteStrides(shape, in[i].elementBytes);
        staging.push_back(
            w.vmem(static_cast<std::uint64_t>(padded * width * 4), "the elements of a reduction"));
        std::vector<MoveDim> dims(shape.size());
        std::int64_t keptStride = 4, blockStride = padded * 4;
        for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
            const auto u = static_cast<std::size_t>(d);
            auto& stride = reduced[u] ? blockStride : keptStride;
            dims[u] = {shape[u], xs[u], stride};
            stride *= shape[u];
        }
        w.move(s, isa::Space::Vmem, staging.back(), isa::Space::Hbm, in[i].address, dims, in[i].widening());
    }
    w.waitAll(s);
    combineBlocks(w, op.regions[0], staging, padded, width, outputs,
                  {in.begin() + static_cast<std::ptrdiff_t>(n), in.end()}, out);
}

} // namespace

void combineBlocks(ProgramWriter& w, const Body& region, const std::vector<std::uint64_t>& staging,
                   std::int64_t padded, std::int64_t width, std::int64_t outputs,
                   const std::vector<TensorRef>& inits, const std::vector<TensorRef>& out)
{
    const std::size_t n = staging.size();
    if (16 + 3 * static_cast<int>(n) > 29)
        lowerFail("a reduction with more than 4 inputs has no lowering yet");
    std::vector<std::uint64_t> results;
    for (std::size_t i = 0; i < n; ++i)
        results.push_back(w.vmem(static_cast<std::uint64_t>(padded * 4), "the results of a reduction"));
    setUpRegionConstants(w, region);
    const int acc = 16, element = 16 + static_cast<int>(n), last = 29 - static_cast<int>(n);
    for (std::size_t i = 0; i < n; ++i)
        broadcastScalar(w, inits[i], 29 - static_cast<int>(i));
    std::vector<int> args;
    for (std::size_t i = 0; i < 2 * n; ++i)
        args.push_back(acc + static_cast<int>(i));
    // In loop mode, a register of results an iteration (every address moves by 4 KiB).
    const bool looped = loopsOver(w, padded / 1024, 4096);
    const char* offset = looped ? w.offset() : nullptr;
    if (looped)
        w.beginLoop(padded / 1024, 4096);
    for (std::int64_t r = 0; r < (looped ? 1024 : padded); r += 1024) {
        for (std::size_t i = 0; i < n; ++i)
            w.bundle("vmov " + v(acc + static_cast<int>(i)) + ", " + v(29 - static_cast<int>(i)));
        for (std::int64_t j = 0; j < width; ++j) {
            for (std::size_t i = 0; i < n; ++i)
                w.bundle("vld " + v(element + static_cast<int>(i)) + ", [" +
                         at(staging[i] + static_cast<std::uint64_t>((j * padded + r) * 4), offset) + "]");
            auto res = regionCode(w, region, args, last);
            // Results that are themselves arguments go through temporaries, so the moves cannot clobber.
            for (std::size_t i = 0; i < n; ++i)
                if (res[i] < element + static_cast<int>(n)) {
                    w.bundle("vmov " + v(30 + static_cast<int>(i) % 2) + ", " + v(res[i]));
                    res[i] = 30 + static_cast<int>(i) % 2;
                }
            for (std::size_t i = 0; i < n; ++i)
                w.bundle("vmov " + v(acc + static_cast<int>(i)) + ", " + v(res[i]));
        }
        for (std::size_t i = 0; i < n; ++i)
            w.bundle("vst " + v(acc + static_cast<int>(i)) + ", [" +
                     at(results[i] + static_cast<std::uint64_t>(r * 4), offset) + "]");
    }
    if (looped)
        w.endLoop();
    auto back = w.stream();
    for (std::size_t i = 0; i < n; ++i)
        w.dma(back, isa::Space::Hbm, out[i].address, isa::Space::Vmem, results[i],
              static_cast<std::uint64_t>(outputs * 4), 1, 0, 0, {}, out[i].narrowing());
    w.waitAll(back);
}

namespace {

// VMEM of the row layout for `rows` rows: the rows in groups of 8, and a register of results per group.
std::uint64_t rowsBytes(std::int64_t rows, std::int64_t rowBytes)
{
    const auto groups = static_cast<std::uint64_t>((rows + 7) / 8);
    return groups * 8 * static_cast<std::uint64_t>(rowBytes) + groups * 4096;
}

// A reduce whose rows do not fit VMEM, in slabs that do: a run of indices of the outermost kept dimension
// one index of which fits, at fixed indices of the kept dimensions before it (the movements' slabs). A
// slab's results are contiguous in the result. The identity in the padding lanes is written once: every
// slab fills the same lanes.
void reduceRowsInSlabs(ProgramWriter& w, OpKind kind, const std::vector<MoveDim>& kept,
                       const std::vector<MoveDim>& lanesDims, std::int64_t rowBytes, std::int64_t width,
                       const TensorRef& x, const TensorRef& init, const TensorRef& out, std::uint64_t budget)
{
    std::vector<std::int64_t> rowsPerIndex(kept.size()); // rows one index of kept dimension j spans
    for (std::int64_t j = static_cast<std::int64_t>(kept.size()) - 1, n = 1; j >= 0; --j) {
        rowsPerIndex[static_cast<std::size_t>(j)] = n;
        n *= kept[static_cast<std::size_t>(j)].size;
    }
    std::size_t k = 0;
    while (k < kept.size() && rowsBytes(rowsPerIndex[k], rowBytes) > budget)
        ++k;
    if (k == kept.size())
        lowerFail("one row of " + std::to_string(width) + " reduced elements needs " +
                  std::to_string(rowsBytes(1, rowBytes)) + " bytes of VMEM; " + std::to_string(budget) +
                  " are free (a reduction this long is not split yet)");
    // A row costs its bytes and an eighth of a results register; groups of 8 round that up a little.
    const auto perIndex = static_cast<std::uint64_t>(rowsPerIndex[k] * (rowBytes + 512));
    std::int64_t run = std::min<std::int64_t>(
        kept[k].size, std::max<std::int64_t>(1, static_cast<std::int64_t>(budget / perIndex)));
    while (run > 1 && rowsBytes(run * rowsPerIndex[k], rowBytes) > budget)
        --run;
    const ReductionRows rows = reductionRows(w, kind, run * rowsPerIndex[k], width);
    auto s = w.stream();
    auto back = w.stream();
    std::int64_t leading = 1;
    for (std::size_t d = 0; d < k; ++d)
        leading *= kept[d].size;
    for (std::int64_t l = 0; l < leading; ++l) {
        std::int64_t srcOffset = 0, firstRow = 0;
        for (std::int64_t rest = l, d = static_cast<std::int64_t>(k) - 1; d >= 0; --d) {
            const auto u = static_cast<std::size_t>(d);
            const auto i = rest % kept[u].size;
            rest /= kept[u].size;
            srcOffset += i * kept[u].srcStride;
            firstRow += i * rowsPerIndex[u];
        }
        for (std::int64_t first = 0; first < kept[k].size; first += run) {
            std::vector<MoveDim> slab(kept.begin() + static_cast<std::ptrdiff_t>(k), kept.end());
            slab.front().size = std::min(run, kept[k].size - first);
            slab.insert(slab.end(), lanesDims.begin(), lanesDims.end());
            w.move(s, isa::Space::Vmem, rows.staging, isa::Space::Hbm,
                   x.address + static_cast<std::uint64_t>(srcOffset + first * kept[k].srcStride), slab,
                   x.widening());
            w.waitAll(s);
            ReductionRows part = rows;
            part.rows = slab.front().size * rowsPerIndex[k];
            part.groups = (part.rows + 7) / 8;
            TensorRef results = out;
            results.address +=
                static_cast<std::uint64_t>((firstRow + first * rowsPerIndex[k]) * out.elementBytes);
            combineRows(w, part, init, results,
                        &back); // waits for its results to leave: the staging is reused
        }
    }
}

// Rows of `kept` (row-major) of the elements `lanes` picks (their source strides set), from x into out:
// whole, or in slabs; a row too long for VMEM in two passes.
void reduceRows(ProgramWriter& w, OpKind kind, std::vector<MoveDim> kept, std::vector<MoveDim> lanes,
                const TensorRef& x, const TensorRef& init, const TensorRef& out);

std::int64_t product(const std::vector<MoveDim>& dims)
{
    std::int64_t n = 1;
    for (const auto& d : dims)
        n *= d.size;
    return n;
}

std::int64_t laneRowBytes(std::int64_t width)
{
    return std::max<std::int64_t>((width + 127) / 128 * 128, 128) * 4;
}

// A row longer than VMEM holds (a sum over a whole large tensor): the first pass reduces runs of the
// innermost reduced elements that fit to partial results in HBM (f32, from the reducer's identity), the
// second reduces each row's partials with the initial value. The leading reduced dimensions become rows
// of the first pass; if the innermost alone is too long it is split into equal runs (a divisor of its
// size). Adds are summed in another order than the interpreter's (within check's f32 tolerance); maximum
// and minimum are exact in any order.
void reduceInTwoPasses(ProgramWriter& w, OpKind kind, const std::vector<MoveDim>& kept,
                       std::vector<MoveDim> lanes, const TensorRef& x, const TensorRef& init,
                       const TensorRef& out, std::uint64_t budget)
{
    const auto fits = [&](std::int64_t width) { return rowsBytes(1, laneRowBytes(width)) <= budget / 2; };
    std::vector<MoveDim> outer; // reduced dimensions that become rows of the first pass
    while (lanes.size() > 1 && !fits(product(lanes))) {
        outer.push_back(lanes.front());
        lanes.erase(lanes.begin());
    }
    if (!fits(product(lanes))) {
        const MoveDim d = lanes.front();
        std::int64_t run = 0;
        for (std::int64_t b = std::min<std::int64_t>(d.size - 1, budget / 64); b >= 2 && run == 0; --b)
            if (d.size % b == 0 && fits(b))
                run = b;
        if (run == 0)
            lowerFail("a reduction of " + std::to_string(d.size) +
                      " elements along one dimension whose size has no divisor that fits VMEM (" +
                      std::to_string(budget) + " bytes free) has no lowering yet");
        outer.push_back({d.size / run, d.srcStride * run, 0});
        lanes.front() = {run, d.srcStride, 0};
    }
    const std::int64_t rows = product(kept), partialsPerRow = product(outer);
    TensorRef partials;
    partials.type = TensorType{{rows, partialsPerRow}, ElementType::F32};
    partials.address = w.hbmBuffer("reduce_partials", static_cast<std::uint64_t>(rows * partialsPerRow * 4),
                                   "f32", partials.type.shape);
    TensorRef identity;
    identity.type = TensorType{{}, ElementType::F32};
    identity.scalarConstant = reducerIdentity(kind);
    std::vector<MoveDim> firstRows = kept;
    firstRows.insert(firstRows.end(), outer.begin(), outer.end());
    reduceRows(w, kind, firstRows, lanes, x, identity, partials);
    w.beginKernel(); // the first pass's rows in VMEM are spent (it waited for its results)
    reduceRows(w, kind, {{rows, partialsPerRow * 4, 0}}, {{partialsPerRow, 4, 0}}, partials, init, out);
}

void reduceRows(ProgramWriter& w, OpKind kind, std::vector<MoveDim> kept, std::vector<MoveDim> lanes,
                const TensorRef& x, const TensorRef& init, const TensorRef& out)
{
    const std::int64_t width = product(lanes), rowsCount = product(kept);
    const std::int64_t rowBytes = laneRowBytes(width);
    std::int64_t stride = rowBytes;
    for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
        it->dstStride = stride;
        stride *= it->size;
    }
    stride = 4;
    for (auto it = lanes.rbegin(); it != lanes.rend(); ++it) {
        it->dstStride = stride;
        stride *= it->size;
    }
    const std::uint64_t budget = w.vmemAvailable() / 4096 * 4096;
    if (rowsBytes(1, rowBytes) > budget) {
        reduceInTwoPasses(w, kind, kept, lanes, x, init, out, budget);
        return;
    }
    if (rowsBytes(rowsCount, rowBytes) <= budget) {
        const auto rows = reductionRows(w, kind, rowsCount, width);
        kept.insert(kept.end(), lanes.begin(), lanes.end());
        auto s = w.stream();
        w.move(s, isa::Space::Vmem, rows.staging, isa::Space::Hbm, x.address, kept, x.widening());
        w.waitAll(s);
        combineRows(w, rows, init, out);
        return;
    }
    reduceRowsInSlabs(w, kind, kept, lanes, rowBytes, width, x, init, out, budget);
}

} // namespace

void lowerReduce(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                 const std::vector<TensorRef>& outs)
{
    // Integers take the general path: the cross-lane unit sums f32 only, and the region's own vector code
    // computes in the integer type (wrapping, brought back to its width).
    if (!isSimpleReducer(op) || !isFloat(in.at(0).type.element)) {
        lowerReduceRegion(w, op, in, outs);
        return;
    }
    const auto& out = outs.at(0);
    const auto kind = reducerKind(op);

    const auto& x = in[0];
    std::vector<bool> reduced(x.type.shape.size());
    for (const auto* a = op.attributes.find("dimensions"); const auto& item : a->items)
        reduced[static_cast<std::size_t>(item.integer)] = true;
    std::int64_t rowsCount = 1, width = 1;
    for (std::size_t d = 0; d < reduced.size(); ++d)
        (reduced[d] ? width : rowsCount) *= x.type.shape[d];
    const auto xs = byteStrides(x.type.shape, x.elementBytes); // packed (f16/bf16): widened on the way in
    // The columns layout sums in the interpreter's order, but its DMAs scatter every element of a reduction
    // over its innermost dimensions to a block of its own: one 4-byte piece each (65,536 elements: 30 us on
    // tpu_v4.json). Past 4,096 elements such a reduction (a softmax's row sums) takes the rows layout, whose
    // DMA is contiguous.
    const bool innermost = !reduced.empty() && reduced.back();
    if (fitsColumns(w, rowsCount, width) && (!innermost || rowsCount * width <= 4096)) {
        // Kept dimensions pick the element of a block, reduced ones the block.
        const auto columns = reductionColumns(w, kind, rowsCount, width);
        std::vector<MoveDim> dims(reduced.size());
        std::int64_t keptStride = 4, blockStride = columns.padded * 4;
        for (int d = static_cast<int>(reduced.size()) - 1; d >= 0; --d) {
            const auto u = static_cast<std::size_t>(d);
            auto& stride = reduced[u] ? blockStride : keptStride;
            dims[u] = {x.type.shape[u], xs[u], stride};
            stride *= x.type.shape[u];
        }
        auto s = w.stream();
        w.move(s, isa::Space::Vmem, columns.staging, isa::Space::Hbm, x.address, dims, x.widening());
        w.waitAll(s);
        combineColumns(w, columns, in[1], out);
        return;
    }
    // Kept dimensions pick the row, reduced ones the lane.
    std::vector<MoveDim> kept, lanesDims;
    for (std::size_t d = 0; d < reduced.size(); ++d)
        (reduced[d] ? lanesDims : kept).push_back({x.type.shape[d], xs[d], 0});
    reduceRows(w, kind, kept, lanesDims, x, in[1], out);
}

} // namespace xps::shlo::lower
