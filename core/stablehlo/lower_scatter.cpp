// scatter as XLA runs it on a TPU-class core: the result starts as a copy of the input, and the index
// vectors are taken one after another (colliding updates must see each other's results). For each, the
// scalar unit turns the indices in SMEM into the HBM address of the window it updates, one DMA brings that
// window of the result and another the matching window of the updates into VMEM, the vector unit applies
// the update computation, and a third DMA writes the window back before the next one is read.
//
// A window that reaches outside the input is left as it was, whole, as XLA does (its start is clamped
// into the input so the DMAs stay in bounds, and the update computation's result is discarded there). The
// StableHLO spec skips such an update element by element; the reference interpreter follows the spec, so
// the two differ only for a window that lies partly inside the input.

#include <algorithm>
#include <limits>

#include "stablehlo/eval_ops.h"
#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

// Registers of the per-window code: the result's window, the update's, the in-bounds mask, the output.
constexpr int kResultReg = 16, kUpdateReg = 17, kMaskReg = 29, kOutReg = 30;

} // namespace

void lowerScatter(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                  const TensorRef& out)
{
    if (in.size() != 3 || op.resultTypes.size() != 1)
        lowerFail("a scatter of several inputs has no lowering yet (the reference interpreter evaluates it)");
    const TensorRef& input = in[0];
    const TensorRef& indices = in[1];
    const TensorRef& updates = in[2];
    const detail::ScatterDims s = detail::scatterDims(op, input.type, indices.type, updates.type);
    if (input.elementBytes != out.elementBytes)
        lowerFail("the input and the result are held in different element sizes (a lowering bug)");
    if (op.regions.size() != 1 || op.regions[0].argumentTypes.size() != 2)
        lowerFail("scatter needs an update computation of 2 arguments");
    const std::int64_t bytes = out.elementBytes;
    if (out.type.elementCount() * bytes > std::numeric_limits<std::int32_t>::max())
        lowerFail("a scatter into a tensor of " + std::to_string(out.type.elementCount() * bytes) +
                  " bytes: offsets past 2 GiB do not fit the scalar unit's 32-bit registers");

    // One flag for each kind of DMA, each waited for in full before the code that needs it.
    auto load = w.stream();
    auto reads = w.stream();
    auto writes = w.stream();
    // The result starts as the input.
    w.dma(load, isa::Space::Hbm, out.address, isa::Space::Hbm, input.address,
          static_cast<std::uint64_t>(out.type.elementCount() * bytes));
    w.waitAll(load);
    if (updates.type.elementCount() == 0)
        return;

    const auto outStrides = byteStrides(out.type.shape, bytes);
    const auto updateStrides = byteStrides(updates.type.shape, updates.elementBytes);
    const auto indexStrides = stridesOf(indices.type.shape);
    const auto K = static_cast<std::int64_t>(s.scatterDimsToOperandDims.size());

    // One window, laid out row-major in VMEM in the update window dimensions' order (which is the input's
    // windowed dimensions' order), padded to whole vector registers.
    const std::vector<std::int64_t> windowShape = sizesAt(updates.type.shape, s.updateWindowDims);
    const auto windowStrides = byteStrides(windowShape, 4);
    const std::int64_t windowElements = productOf(windowShape);
    const std::int64_t registers = (windowElements + 1023) / 1024;
    const std::int64_t windowBytes = registers * kVregBytes;
    if (2 * windowBytes > static_cast<std::int64_t>(w.vmemAvailable()))
        lowerFail("one window of the scatter (" + std::to_string(windowElements) +
                  " elements) does not fit VMEM twice");
    // The window in the result and in the updates, and its size along each input dimension (1 where the
    // dimension is inserted or a batching one).
    std::vector<MoveDim> resultWindow, updateWindow;
    std::vector<std::int64_t> extent(static_cast<std::size_t>(out.type.rank()), 1);
    for (std::int64_t d = 0, o = 0; d < out.type.rank(); ++d) {
        const auto u = static_cast<std::size_t>(d);
        if (!s.windowed(d))
            continue;
        const auto uo = static_cast<std::size_t>(o++);
        const auto ud = static_cast<std::size_t>(s.updateWindowDims[uo]);
        extent[u] = windowShape[uo];
        resultWindow.push_back({windowShape[uo], outStrides[u], windowStrides[uo]});
        updateWindow.push_back({windowShape[uo], updateStrides[ud], windowStrides[uo]});
    }

    const std::vector<std::int64_t> scatterShape = sizesAt(updates.type.shape, s.updateScatterDims);
    const std::int64_t positions = productOf(scatterShape);
    // Each position's index vector is K consecutive words when index_vector_dim is last (or K is 1).
    const bool indexRuns = K <= 1 || s.indexVectorDim == indices.type.rank() - 1;
    const auto smemWords = static_cast<std::int64_t>(w.machine().smemBytes / 4);
    const std::int64_t indexWords = indices.type.elementCount();
    std::int64_t perChunk = positions;
    if (indexWords > smemWords) {
        if (!indexRuns)
            lowerFail("a scatter whose " + std::to_string(indexWords) +
                      " indices do not fit SMEM and are not laid out one index vector after another");
        perChunk = std::max<std::int64_t>(smemWords / std::max<std::int64_t>(K, 1), 1);
    }

    const std::uint64_t resultArea = w.vmem(static_cast<std::uint64_t>(windowBytes), "scatter result window");
    const std::uint64_t updateArea = w.vmem(static_cast<std::uint64_t>(windowBytes), "scatter update window");
    setUpRegionConstants(w, op.regions[0]);

    std::vector<std::int64_t> pos(scatterShape.size(), 0);
    for (std::int64_t p = 0; p < positions; ++p) {
        const std::int64_t wordBase = indexWords > smemWords ? (p / perChunk) * perChunk * K : 0;
        if (p == 0 || (indexWords > smemWords && p % perChunk == 0)) {
            const std::int64_t words =
                indexWords > smemWords ? std::min(perChunk, positions - p) * K : indexWords;
            w.dma(load, isa::Space::Smem, 0, isa::Space::Hbm,
                  indices.address + static_cast<std::uint64_t>(wordBase * 4),
                  static_cast<std::uint64_t>(words * 4));
            w.waitAll(load);
        }
        for (std::size_t i = pos.size(), rest = static_cast<std::size_t>(p); i-- > 0;) {
            pos[i] = static_cast<std::int64_t>(rest) % scatterShape[i];
            rest /= static_cast<std::size_t>(scatterShape[i]);
        }
        // The static parts of the addresses: this position's updates and its batching dimensions.
        std::int64_t updateBase = 0, resultBase = 0;
        for (std::size_t i = 0; i < pos.size(); ++i)
            updateBase += pos[i] * updateStrides[static_cast<std::size_t>(s.updateScatterDims[i])];
        for (std::size_t i = 0; i < s.inputBatchingDims.size(); ++i) {
            const auto dStart = s.scatterIndicesBatchingDims[i];
            resultBase += pos[static_cast<std::size_t>(dStart - (dStart < s.indexVectorDim ? 0 : 1))] *
                          outStrides[static_cast<std::size_t>(s.inputBatchingDims[i])];
        }
        // s1 = sum over k of clamp(index k, 0, limit k) * stride; s5 = whether every index was in range.
        w.bundle("smov s1, 0");
        w.bundle("smov s5, 1");
        for (std::int64_t k = 0; k < K; ++k) {
            std::int64_t word = 0;
            for (std::int64_t d = 0, b = 0; d < indices.type.rank(); ++d)
                word += (d == s.indexVectorDim ? k : pos[static_cast<std::size_t>(b++)]) *
                        indexStrides[static_cast<std::size_t>(d)];
            const auto dim =
                static_cast<std::size_t>(s.scatterDimsToOperandDims[static_cast<std::size_t>(k)]);
            const std::int64_t limit = out.type.shape[dim] - extent[dim]; // the last start that fits
            w.bundle("sld s2, [" + std::to_string((word - wordBase) * 4) + "]");
            // A word past 2^31 (of an unsigned type too: such an index is past any limit) reads as
            // negative here, so it is out of range either way.
            w.bundle("scmp.ge s3, s2, 0");
            w.bundle("scmp.le s4, s2, " + std::to_string(limit));
            w.bundle("sand s5, s5, s3");
            w.bundle("sand s5, s5, s4");
            w.bundle("smax s2, s2, 0");
            w.bundle("smin s2, s2, " + std::to_string(limit));
            w.bundle("smul s2, s2, " + std::to_string(outStrides[dim]));
            w.bundle("sadd s1, s1, s2");
        }
        DmaAddressing at;
        at.srcRegister = "s1";
        w.move(reads, isa::Space::Vmem, resultArea, isa::Space::Hbm,
               out.address + static_cast<std::uint64_t>(resultBase), resultWindow, out.widening(), bytes, at);
        w.move(reads, isa::Space::Vmem, updateArea, isa::Space::Hbm,
               updates.address + static_cast<std::uint64_t>(updateBase), updateWindow, updates.widening(),
               updates.elementBytes);
        w.waitAll(reads);
        w.bundle("vbcast " + v(kMaskReg) + ", s5");
        for (std::int64_t r = 0; r < registers; ++r) {
            const auto offset = static_cast<std::uint64_t>(r * kVregBytes);
            w.bundle("vld " + v(kResultReg) + ", [" + std::to_string(resultArea + offset) + "]");
            w.bundle("vld " + v(kUpdateReg) + ", [" + std::to_string(updateArea + offset) + "]");
            const auto result = regionCode(w, op.regions[0], {kResultReg, kUpdateReg}, kMaskReg - 1);
            w.bundle("vsel " + v(kOutReg) + ", " + v(kMaskReg) + ", " + v(result.at(0)) + ", " +
                     v(kResultReg));
            w.bundle("vst " + v(kOutReg) + ", [" + std::to_string(resultArea + offset) + "]");
        }
        std::vector<MoveDim> back = resultWindow;
        for (auto& d : back)
            std::swap(d.srcStride, d.dstStride);
        DmaAddressing to;
        to.dstRegister = "s1";
        w.move(writes, isa::Space::Hbm, out.address + static_cast<std::uint64_t>(resultBase),
               isa::Space::Vmem, resultArea, back, out.narrowing(), bytes, to);
        w.waitAll(writes);
    }
}

} // namespace xps::shlo::lower
