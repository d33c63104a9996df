// dot_general on the MXU. The operands are viewed as lhs [B, M, K] and rhs [B, K, N] (batch, free and
// contracting dimensions in the op's order) and brought into VMEM in the MXU's shapes: the lhs as
// 128-lane panels per 128-wide K block, M rows each; the rhs as 128 x 128 weight blocks. For every batch
// and 128-wide N block, each K block's weights are pushed and committed, the lhs rows stream through in
// groups of up to the result FIFO's depth, and the products are popped and summed over K in a VMEM copy
// of the result, which leaves for HBM at the end. Padding lanes and rows are zero, so they add nothing.

#include <algorithm>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

struct DotDims
{
    std::vector<std::int64_t> batch, contracting, free;
};

std::vector<std::int64_t> intList(const Operation& op, std::string_view name)
{
    const auto* a = op.attributes.find(name);
    if (!a)
        return {};
    auto v = a->integers();
    if (!v)
        lowerFail("attribute '" + std::string(name) + "' must be a list of integers");
    return *v;
}

DotDims dimsOf(const std::vector<std::int64_t>& batch, const std::vector<std::int64_t>& contracting, int rank)
{
    DotDims d{batch, contracting, {}};
    for (std::int64_t i = 0; i < rank; ++i)
        if (std::find(batch.begin(), batch.end(), i) == batch.end() &&
            std::find(contracting.begin(), contracting.end(), i) == contracting.end())
            d.free.push_back(i);
    return d;
}

std::int64_t product(const std::vector<std::int64_t>& dims, const TensorType& t)
{
    std::int64_t p = 1;
    for (const auto d : dims)
        p *= t.shape[static_cast<std::size_t>(d)];
    return p;
}

// MoveDims of `dims` of `t` whose destination strides nest inside `outer` (the innermost dimension gets
// `inner`), e.g. rows of 512 B for the M dimensions.
void appendNested(std::vector<MoveDim>& out, const std::vector<std::int64_t>& dims, const TensorType& t,
                  const std::vector<std::int64_t>& srcStrides, std::int64_t inner)
{
    std::vector<MoveDim> m;
    std::int64_t stride = inner;
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        const auto d = static_cast<std::size_t>(*it);
        m.insert(m.begin(), MoveDim{t.shape[d], srcStrides[d], stride});
        stride *= t.shape[d];
    }
    out.insert(out.end(), m.begin(), m.end());
}

// The one dimension a 128-wide block of K or N is cut from; several are allowed only when the whole
// extent fits one block.
MoveDim blockOf(const std::vector<std::int64_t>& dims, const TensorType& t,
                const std::vector<std::int64_t>& strides, std::int64_t block, std::int64_t dstStride,
                std::int64_t& srcOffset, std::vector<MoveDim>& whole)
{
    if (dims.size() != 1) {
        appendNested(whole, dims, t, strides, dstStride);
        return {1, 0, 0};
    }
    const auto d = static_cast<std::size_t>(dims[0]);
    const auto size = std::min<std::int64_t>(128, t.shape[d] - block * 128);
    srcOffset += block * 128 * strides[d];
    return {size, strides[d], dstStride};
}

} // namespace

void lowerDot(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in, const TensorRef& out)
{
    const auto& lhs = in[0];
    const auto& rhs = in[1];
    // f16 and bf16 are held as f32 (their values exactly): the MXU multiplies them as f32.
    if (!isFloat(lhs.type.element) || !isFloat(rhs.type.element) || !isFloat(out.type.element))
        lowerFail("dot_general on the MXU takes floating-point operands in this lowering (i32 comes next)");
    DotDims l, r;
    if (op.kind == OpKind::Dot) {
        l = dimsOf({}, {lhs.type.rank() - 1}, lhs.type.rank());
        r = dimsOf({}, {0}, rhs.type.rank());
    } else {
        l = dimsOf(intList(op, "lhs_batching_dimensions"), intList(op, "lhs_contracting_dimensions"),
                   lhs.type.rank());
        r = dimsOf(intList(op, "rhs_batching_dimensions"), intList(op, "rhs_contracting_dimensions"),
                   rhs.type.rank());
    }
    const std::int64_t B = product(l.batch, lhs.type), M = product(l.free, lhs.type);
    const std::int64_t K = product(l.contracting, lhs.type), N = product(r.free, rhs.type);
    if ((K > 128 && l.contracting.size() != 1) || (N > 128 && r.free.size() != 1))
        lowerFail("dot_general with several contracting (or rhs free) dimensions over 128 elements has no "
                  "lowering yet");
    const std::int64_t KB = std::max<std::int64_t>((K + 127) / 128, 1),
                       NB = std::max<std::int64_t>((N + 127) / 128, 1);
    const std::int64_t Mpad = std::max<std::int64_t>((M + 7) / 8 * 8, 8);
    const std::int64_t panelBytes = Mpad * 512;
    const auto lhsV = w.vmem(static_cast<std::uint64_t>(B * KB * panelBytes), "dot_general's lhs panels");
    const auto rhsV = w.vmem(static_cast<std::uint64_t>(B * KB * NB * 65536), "dot_general's weight blocks");
    const auto outV = w.vmem(static_cast<std::uint64_t>(B * NB * panelBytes), "dot_general's result panels");
    w.bundle("vbcast v15, 0");
    for (std::uint64_t a = lhsV; a < outV; a += 4096) // zero padding: lanes and rows past K, M and N
        w.bundle("vst v15, [" + std::to_string(a) + "]");
    auto in1 = w.stream();
    const auto ls = byteStrides(lhs.type.shape), rs = byteStrides(rhs.type.shape);
    for (std::int64_t kb = 0; kb < KB; ++kb) {
        std::vector<MoveDim> m;
        appendNested(m, l.batch, lhs.type, ls, KB * panelBytes);
        appendNested(m, l.free, lhs.type, ls, 512);
        std::int64_t offset = 0;
        const auto k = blockOf(l.contracting, lhs.type, ls, kb, 4, offset, m);
        m.push_back(k);
        w.move(in1, isa::Space::Vmem, lhsV + static_cast<std::uint64_t>(kb * panelBytes), isa::Space::Hbm,
               lhs.address + static_cast<std::uint64_t>(offset), m);
        for (std::int64_t nb = 0; nb < NB; ++nb) {
            std::vector<MoveDim> b;
            appendNested(b, r.batch, rhs.type, rs, KB * NB * 65536);
            std::int64_t rOffset = 0;
            const auto kr = blockOf(r.contracting, rhs.type, rs, kb, 512, rOffset, b);
            b.push_back(kr);
            const auto nr = blockOf(r.free, rhs.type, rs, nb, 4, rOffset, b);
            b.push_back(nr);
            w.move(in1, isa::Space::Vmem, rhsV + static_cast<std::uint64_t>((kb * NB + nb) * 65536),
                   isa::Space::Hbm, rhs.address + static_cast<std::uint64_t>(rOffset), b);
        }
    }
    w.waitAll(in1);
    const std::int64_t tiles = Mpad / 8;
    const std::int64_t group =
        std::max<std::int64_t>(std::min<std::int64_t>(w.machine().mxuResultFifoDepth, 16), 1);
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t nb = 0; nb < NB; ++nb) {
            const auto cPanel = outV + static_cast<std::uint64_t>((b * NB + nb) * panelBytes);
            for (std::int64_t kb = 0; kb < KB; ++kb) {
                const auto block = rhsV + static_cast<std::uint64_t>(((b * KB + kb) * NB + nb) * 65536);
                for (int row = 0; row < 16; ++row) {
                    w.bundle("vld v8, [" + std::to_string(block + static_cast<std::uint64_t>(row * 4096)) +
                             "]");
                    w.bundle("mxu.wpush v8");
                }
                w.bundle("mxu.wcommit");
                const auto panel = lhsV + static_cast<std::uint64_t>((b * KB + kb) * panelBytes);
                for (std::int64_t t0 = 0; t0 < tiles; t0 += group) {
                    const auto t1 = std::min(tiles, t0 + group);
                    for (std::int64_t t = t0; t < t1; ++t) {
                        const auto reg = "v" + std::to_string(t % 2);
                        w.bundle("vld " + reg + ", [" +
                                 std::to_string(panel + static_cast<std::uint64_t>(t * 4096)) + "]");
                        w.bundle("mxu.mm " + reg);
                    }
                    for (std::int64_t t = t0; t < t1; ++t) {
                        const auto tile = std::to_string(cPanel + static_cast<std::uint64_t>(t * 4096));
                        w.bundle("mxu.pop v4");
                        if (kb > 0) {
                            w.bundle("vld v5, [" + tile + "]");
                            w.bundle("vadd.f32 v4, v5, v4");
                        }
                        w.bundle("vst v4, [" + tile + "]");
                    }
                }
            }
        }
    // Back to HBM: the result is [batch..., lhs free..., rhs free...], row-major, so (b, m, n) is at
    // ((b * M + m) * N + n) * 4.
    auto back = w.stream();
    for (std::int64_t nb = 0; nb < NB; ++nb) {
        const auto width = std::min<std::int64_t>(128, N - nb * 128);
        w.move(back, isa::Space::Hbm, out.address + static_cast<std::uint64_t>(nb * 512), isa::Space::Vmem,
               outV + static_cast<std::uint64_t>(nb * panelBytes),
               {{B, NB * panelBytes, M * N * 4}, {M, 512, N * 4}, {width, 4, 4}});
    }
    w.waitAll(back);
}

} // namespace xps::shlo::lower
