#include "stablehlo/lower_views.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <optional>

#include "stablehlo/attribute.h"

namespace xps::shlo::lower {

namespace {

constexpr std::int64_t kLanes = 128;
constexpr std::int64_t kRowBytes = kLanes * 4;

bool scalarView(const TensorRef& x)
{
    return std::all_of(x.broadcastStrides.begin(), x.broadcastStrides.end(),
                       [](std::int64_t s) { return s == 0; });
}

// The row dimensions of a view (all but the last), those of size 1 left out: they never step.
struct RowDims
{
    std::vector<std::int64_t> sizes, strides;
};

RowDims rowDims(const TensorRef& x)
{
    RowDims d;
    for (std::size_t i = 0; i + 1 < x.type.shape.size(); ++i)
        if (x.type.shape[i] != 1) {
            d.sizes.push_back(x.type.shape[i]);
            d.strides.push_back(x.broadcastStrides[i]);
        }
    return d;
}

// How the 8 rows of a register step through a view's operand: evenly when the innermost run of row
// dimensions that step as one (a stride equal to the next one's times its size) spans a multiple of 8 rows,
// or every row. Nothing otherwise.
std::optional<std::pair<std::int64_t, bool>> rowStep(const TensorRef& x)
{
    const RowDims d = rowDims(x);
    if (d.sizes.empty())
        return std::pair<std::int64_t, bool>{0, true};
    std::size_t first = d.sizes.size() - 1;
    std::int64_t extent = d.sizes[first];
    while (first > 0 && d.strides[first - 1] == d.strides[first] * d.sizes[first]) {
        --first;
        extent *= d.sizes[first];
    }
    if (first != 0 && extent % 8 != 0)
        return std::nullopt;
    return std::pair<std::int64_t, bool>{d.strides.back(), first == 0};
}

// A view written out to HBM scratch by the movement kernel, as the broadcast_in_dim it stands for: its
// operand is the dimensions it steps along.
TensorRef materialize(ProgramWriter& w, const TensorRef& view)
{
    Operation op;
    op.kind = OpKind::BroadcastInDim;
    op.resultTypes = {view.type};
    TensorRef operand = view;
    operand.broadcastStrides.clear();
    operand.type.shape.clear();
    std::vector<std::int64_t> dims;
    for (std::size_t d = 0; d < view.broadcastStrides.size(); ++d)
        if (view.broadcastStrides[d] != 0) {
            dims.push_back(static_cast<std::int64_t>(d));
            operand.type.shape.push_back(view.type.shape[d]);
        }
    op.attributes.set("broadcast_dimensions", integerList(dims));
    TensorRef out = view;
    out.broadcastStrides.clear();
    out.splat.reset();
    out.address =
        w.hbmBuffer("broadcast", static_cast<std::uint64_t>(view.type.elementCount() * view.elementBytes),
                    view.bufferDtype(), view.type.shape);
    // A region of its own inside the kernel's: the timeline shows what was written out.
    const std::string region = "broadcast_in_dim written out";
    w.declareRegion(region, "loop");
    w.regionBegin(region);
    w.beginKernel();
    lowerMovement(w, op, {operand}, out);
    w.beginKernel();
    w.regionEnd();
    return out;
}

// A view's operand into VMEM with each element across a row of 128 lanes: the elements land in lane 0 of
// their rows (one strided DMA), and each group of 8 rows is spread across its lanes: a float row summed
// across lanes with -0 in the others (x + -0 is x for every x), an integer one ORed with itself rotated by
// 1, 2, 4, ... 64 lanes over 0s. A TPU broadcasts a value across lanes in one op; this costs a few.
std::uint64_t expandRows(ProgramWriter& w, const TensorRef& x)
{
    const std::int64_t n = x.sourceElements();
    const std::int64_t groups = (n + 7) / 8;
    const auto bytes = static_cast<std::uint64_t>(groups * 8 * kRowBytes);
    const std::uint64_t copy = w.vmem(bytes, "a broadcast's values across lanes");
    const bool real = isFloat(x.type.element);
    w.bundle(std::string("vbcast v16, ") + (real ? "2147483648" : "0"));
    w.fill("v16", copy, bytes);
    auto s = w.stream();
    w.dma(s, isa::Space::Vmem, copy, isa::Space::Hbm, x.address, static_cast<std::uint64_t>(x.elementBytes),
          static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(x.elementBytes), kRowBytes, {},
          x.widening());
    w.waitAll(s);
    const bool looped = w.loops() && !w.inLoop() && groups >= 8 && ProgramWriter::loopFits(groups, 4096);
    const auto at = [&](std::int64_t g) {
        const std::string address = std::to_string(copy + static_cast<std::uint64_t>(g * 4096));
        return "[" + (looped ? std::string(w.offset()) + " + " + address : address) + "]";
    };
    if (looped)
        w.beginLoop(groups, 4096);
    for (std::int64_t g = 0; g < (looped ? 1 : groups); ++g) {
        w.bundle("vld v16, " + at(g));
        if (real) {
            w.bundle("xlu.rsum.f32 v17, v16");
        } else {
            for (int shift = 1; shift < kLanes; shift *= 2) {
                w.bundle("xlu.rot v17, v16, " + std::to_string(shift));
                w.bundle("vor v16, v16, v17");
            }
            w.bundle("vmov v17, v16");
        }
        w.bundle("vst v17, " + at(g));
    }
    if (looped)
        w.endLoop();
    return copy;
}

// `x` with its last `k` dimensions as one (a row of the row layout): a tensor in HBM always; a view when
// it is broadcast along all of them (stride 0) or steps through them as its operand's row-major order
// does; nothing otherwise.
std::optional<TensorRef> mergeTrailing(const TensorRef& x, std::size_t k)
{
    const std::size_t rank = x.type.shape.size();
    if (k <= 1 || k > rank)
        return k == 1 ? std::optional(x) : std::nullopt;
    TensorRef merged = x;
    std::int64_t size = 1;
    for (std::size_t d = rank - k; d < rank; ++d)
        size *= x.type.shape[d];
    merged.type.shape.resize(rank - k + 1);
    merged.type.shape.back() = size;
    if (!x.isView())
        return merged;
    std::optional<std::int64_t> stride; // the innermost stepping dimension's
    std::int64_t span = 1;              // elements the dimensions inside the current one step over
    bool broadcast = true, contiguous = true;
    for (std::size_t d = rank; d-- > rank - k;) {
        if (x.type.shape[d] == 1)
            continue;
        const std::int64_t s = x.broadcastStrides[d];
        broadcast = broadcast && s == 0;
        if (!stride)
            stride = s;
        contiguous = contiguous && s == *stride * span;
        span *= x.type.shape[d];
    }
    if (!broadcast && !contiguous)
        return std::nullopt;
    merged.broadcastStrides.resize(rank - k + 1);
    merged.broadcastStrides.back() = broadcast ? 0 : stride.value_or(1);
    return merged;
}

// Whether the row layout of `out` fits every input as prepareFeeds would read it (no view written out):
// rows of a multiple of 128 lanes in groups of 8, every view stepping evenly and along or across the row,
// the copies in half of VMEM and the tiles in a quarter.
bool rowLayoutFits(const std::vector<TensorRef>& inputs, const std::vector<Feed>& feeds,
                   const TensorType& out, std::uint64_t vmem)
{
    const std::int64_t width = out.shape.empty() ? 0 : out.shape.back();
    const std::int64_t rows = width > 0 ? out.elementCount() / width : 0;
    if (width % kLanes != 0 || width == 0 || rows % 8 != 0 || rows == 0)
        return false;
    std::uint64_t copyBytes = 0;
    std::size_t streamed = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const TensorRef& x = inputs[i];
        if (feeds[i] == Feed::Scalar)
            continue;
        if (!x.isView()) {
            ++streamed;
            continue;
        }
        const std::int64_t lane = x.broadcastStrides.back();
        if (!rowStep(x) || (lane != 0 && lane != 1))
            return false;
        const std::int64_t elements = x.sourceElements();
        copyBytes += static_cast<std::uint64_t>(lane == 1 ? (elements * 4 + 4095) / 4096 * 4096
                                                          : (elements + 7) / 8 * 4096);
    }
    return copyBytes <= vmem / 2 &&
           static_cast<std::uint64_t>((streamed + 1) * 4 * 8 * width * 4) <= vmem / 4;
}

} // namespace

std::int64_t viewRowOffset(const TensorRef& view, std::int64_t row)
{
    std::int64_t offset = 0;
    for (std::int64_t d = static_cast<std::int64_t>(view.type.shape.size()) - 2; d >= 0; --d) {
        const auto u = static_cast<std::size_t>(d);
        offset += row % view.type.shape[u] * view.broadcastStrides[u];
        row /= view.type.shape[u];
    }
    return offset;
}

std::int64_t flatPeriod(const TensorRef& view)
{
    // Zero strides on the leading dimensions, the operand's row-major strides on the rest.
    const auto& shape = view.type.shape;
    const auto& strides = view.broadcastStrides;
    std::int64_t period = 1;
    std::size_t d = shape.size();
    while (d > 0 && (shape[d - 1] == 1 || strides[d - 1] == period)) {
        --d;
        period *= shape[d];
    }
    for (std::size_t i = 0; i < d; ++i)
        if (strides[i] != 0)
            return 0;
    return period > 0 && kRegisterElements % period == 0 ? period : 0;
}

KernelFeeds prepareFeeds(ProgramWriter& w, std::vector<TensorRef>& inputs, const TensorRef& out,
                         bool forceRows)
{
    KernelFeeds k;
    const std::size_t n = inputs.size();
    k.feeds.assign(n, Feed::Streamed);
    k.copies.assign(n, 0);
    k.steps.assign(n, 0);
    k.whole.assign(n, true);
    bool rowViews = false;
    for (std::size_t i = 0; i < n; ++i) {
        const TensorRef& x = inputs[i];
        if (x.splat || (x.type.shape.empty() && !out.type.shape.empty()) || (x.isView() && scalarView(x)))
            k.feeds[i] = Feed::Scalar;
        else if (x.isView() && flatPeriod(x) == 0) // a pattern is cheaper in the flat layout
            rowViews = true;
    }
    // The row layout, when some view needs it and every view fits it: rows of the last dimension, or of
    // the last few as one when that is what makes them fit (an NCHW batch norm's per-channel values are
    // constant along rows of H x W; a row of W alone may be narrower than the 128 lanes).
    TensorType outType = out.type;
    if (rowViews && !forceRows)
        for (std::size_t merge = 1; merge <= out.type.shape.size(); ++merge) {
            std::vector<TensorRef> merged;
            for (const TensorRef& x : inputs)
                if (auto m = mergeTrailing(x, merge))
                    merged.push_back(*m);
            if (merged.size() != n)
                continue;
            TensorRef whole;
            whole.type = out.type;
            const TensorType candidate = mergeTrailing(whole, merge)->type;
            if (rowLayoutFits(merged, k.feeds, candidate, static_cast<std::uint64_t>(w.vmemAvailable()))) {
                inputs = std::move(merged);
                outType = candidate;
                break;
            }
        }
    const auto& shape = outType.shape;
    const std::int64_t width = shape.empty() ? 0 : shape.back();
    const std::int64_t rows = width > 0 ? outType.elementCount() / width : 0;
    bool fits = (rowViews || forceRows) && width % kLanes == 0 && width > 0 && rows % 8 == 0 && rows > 0;
    if (forceRows && !fits)
        lowerFail("a reduction fusion over rows of " + std::to_string(width) + " (a fusion planning bug)");
    std::uint64_t copyBytes = 0;
    std::size_t streamed = 0;
    for (std::size_t i = 0; i < n && fits; ++i) {
        TensorRef& x = inputs[i];
        if (k.feeds[i] == Feed::Scalar)
            continue;
        const std::int64_t lane = x.isView() ? x.broadcastStrides.back() : 0;
        const auto step = x.isView() ? rowStep(x) : std::nullopt;
        if (x.isView() && forceRows && (!step || (lane != 0 && lane != 1))) {
            x = materialize(w, x); // the layout is the reduction's: this view is read from HBM
            k.feeds[i] = Feed::Streamed;
        }
        if (!x.isView()) {
            ++streamed;
            continue;
        }
        fits = step.has_value() && (lane == 0 || lane == 1);
        if (!fits)
            break;
        k.feeds[i] = lane == 1 ? Feed::RowSlice : Feed::RowValue;
        k.steps[i] = step->first;
        k.whole[i] = step->second;
        const std::int64_t elements = x.sourceElements();
        copyBytes += static_cast<std::uint64_t>(lane == 1 ? (elements * 4 + 4095) / 4096 * 4096
                                                          : (elements + 7) / 8 * 4096);
    }
    // Copies in half of VMEM, and a tile of 8 rows for every stream, four in flight, in a quarter.
    const auto vmem = static_cast<std::uint64_t>(w.vmemAvailable());
    fits = fits && copyBytes <= vmem / 2 &&
           static_cast<std::uint64_t>((streamed + 1) * 4 * 8 * width * 4) <= vmem / 4;
    if (forceRows && !fits)
        lowerFail("a reduction fusion whose rows of " + std::to_string(width) +
                  " and broadcasts do not fit VMEM (a fusion planning bug)");
    if (fits) {
        k.rows = RowLayout{rows, width};
        for (std::size_t i = 0; i < n; ++i) {
            const TensorRef& x = inputs[i];
            if (k.feeds[i] == Feed::RowValue) {
                k.copies[i] = expandRows(w, x);
            } else if (k.feeds[i] == Feed::RowSlice) {
                const auto bytes = static_cast<std::uint64_t>(x.sourceElements() * 4);
                k.copies[i] = w.vmem((bytes + 4095) / 4096 * 4096, "a broadcast's operand");
                auto s = w.stream();
                w.dma(s, isa::Space::Vmem, k.copies[i], isa::Space::Hbm, x.address, x.hbmBytes(bytes), 1, 0,
                      0, {}, x.widening());
                w.waitAll(s);
            }
        }
        return k;
    }
    // The flat layout: views whose pattern divides a register are loaded once; the others are written out.
    for (std::size_t i = 0; i < n; ++i) {
        TensorRef& x = inputs[i];
        if (k.feeds[i] == Feed::Scalar || !x.isView()) {
            k.feeds[i] = k.feeds[i] == Feed::Scalar ? Feed::Scalar : Feed::Streamed;
            continue;
        }
        if (flatPeriod(x) > 0) {
            k.feeds[i] = Feed::Pattern;
            continue;
        }
        x = materialize(w, x);
        k.feeds[i] = Feed::Streamed;
    }
    return k;
}

} // namespace xps::shlo::lower
