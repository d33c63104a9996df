#include "stablehlo/lower_transpose_fold.h"

#include <algorithm>
#include <optional>

#include "stablehlo/attribute.h"
#include "stablehlo/lower_fusion.h"

namespace xps::shlo::lower {

namespace {

std::vector<std::int64_t> listOf(const Operation& op, std::string_view name)
{
    const Attribute* a = op.attributes.find(name);
    const auto v = a ? a->integers() : std::nullopt;
    return v ? *v : std::vector<std::int64_t>{};
}

// The dimensions of `shape` whose size is not 1, in order.
std::vector<std::int64_t> sized(const std::vector<std::int64_t>& shape)
{
    std::vector<std::int64_t> out;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (shape[d] != 1)
            out.push_back(static_cast<std::int64_t>(d));
    return out;
}

// Dimension d of a reshape's result as a dimension of its operand, when the reshape only adds or drops
// dimensions of size 1 (and d is not one of those); nothing otherwise.
std::optional<std::int64_t> throughReshape(const TensorType& from, const TensorType& to, std::int64_t d)
{
    const auto a = sized(from.shape), b = sized(to.shape);
    if (a.size() != b.size())
        return std::nullopt;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (from.shape[static_cast<std::size_t>(a[k])] != to.shape[static_cast<std::size_t>(b[k])])
            return std::nullopt;
    const auto it = std::find(b.begin(), b.end(), d);
    if (it == b.end())
        return std::nullopt;
    return a[static_cast<std::size_t>(it - b.begin())];
}

} // namespace

TransposeFolds planTransposeFolds(const Body& body, const std::vector<bool>& excluded)
{
    const auto& ops = body.operations;
    TransposeFolds folds;
    folds.skipped.assign(ops.size(), false);
    const ValueUses uses = valueUses(body);
    const auto& readers = uses.readers;
    const auto& producer = uses.producer;
    const auto isExcluded = [&](std::size_t i) { return i < excluded.size() && excluded[i]; };
    const auto onlyReader = [&](std::uint32_t v, std::size_t reader) {
        return v < readers.size() && readers[v].size() == 1 && readers[v][0] == reader;
    };
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const Operation& dot = ops[i];
        if (dot.kind != OpKind::DotGeneral || dot.operands.size() != 2 || isExcluded(i))
            continue;
        for (int k = 0; k < 2; ++k) {
            const std::uint32_t v = dot.operands[static_cast<std::size_t>(k)];
            if (!onlyReader(v, i) || producer[v] < 0)
                continue;
            auto p = static_cast<std::size_t>(producer[v]);
            std::optional<std::size_t> reshape;
            if (ops[p].kind == OpKind::Reshape && ops[p].operands.size() == 1 && !isExcluded(p)) {
                const std::uint32_t t = ops[p].operands[0];
                if (!onlyReader(t, p) || producer[t] < 0)
                    continue;
                reshape = p;
                p = static_cast<std::size_t>(producer[t]);
            }
            const Operation& transpose = ops[p];
            if (transpose.kind != OpKind::Transpose || transpose.operands.size() != 1 || isExcluded(p))
                continue;
            const std::vector<std::int64_t> perm = listOf(transpose, "permutation");
            const TensorType& x = body.valueTypes.at(transpose.operands[0]);
            const TensorType& t = transpose.resultTypes.at(0);
            const TensorType& read = body.valueTypes.at(v);
            if (perm.size() != x.shape.size() || perm.size() != t.shape.size())
                continue;
            // A dimension of what the dot reads, as one of x.
            const auto toX = [&](std::int64_t d) -> std::optional<std::int64_t> {
                std::optional<std::int64_t> inT = d;
                if (reshape)
                    inT = throughReshape(t, read, d);
                if (!inT || *inT < 0 || *inT >= static_cast<std::int64_t>(perm.size()))
                    return std::nullopt;
                // x's dimension, numbered among those not of size 1 (the shape the dot reads x as).
                const std::int64_t inX = perm[static_cast<std::size_t>(*inT)];
                if (x.shape[static_cast<std::size_t>(inX)] == 1)
                    return std::nullopt;
                const auto kept = sized(x.shape);
                return std::find(kept.begin(), kept.end(), inX) - kept.begin();
            };
            const std::string side = k == 0 ? "lhs" : "rhs";
            TransposeFold fold{transpose.operands[0], {}, {}, {}};
            for (const auto d : sized(x.shape))
                fold.shape.push_back(x.shape[static_cast<std::size_t>(d)]);
            bool ok = true;
            for (const auto d : listOf(dot, side + "_batching_dimensions")) {
                const auto m = toX(d);
                ok = ok && m.has_value();
                fold.batching.push_back(m.value_or(0));
            }
            for (const auto d : listOf(dot, side + "_contracting_dimensions")) {
                const auto m = toX(d);
                ok = ok && m.has_value();
                fold.contracting.push_back(m.value_or(0));
            }
            // The free dimensions (those of size 1 aside) must keep their order: they lay out the result.
            std::vector<std::int64_t> freeRead, freeX;
            const auto used = [](const TransposeFold& f, std::int64_t d) {
                return std::find(f.batching.begin(), f.batching.end(), d) != f.batching.end() ||
                       std::find(f.contracting.begin(), f.contracting.end(), d) != f.contracting.end();
            };
            const auto batchRead = listOf(dot, side + "_batching_dimensions");
            const auto contractRead = listOf(dot, side + "_contracting_dimensions");
            for (std::int64_t d = 0; ok && d < static_cast<std::int64_t>(read.shape.size()); ++d) {
                if (read.shape[static_cast<std::size_t>(d)] == 1 ||
                    std::find(batchRead.begin(), batchRead.end(), d) != batchRead.end() ||
                    std::find(contractRead.begin(), contractRead.end(), d) != contractRead.end())
                    continue;
                const auto m = toX(d);
                ok = m.has_value();
                freeRead.push_back(m.value_or(0));
            }
            for (std::int64_t d = 0; ok && d < static_cast<std::int64_t>(fold.shape.size()); ++d)
                if (!used(fold, d))
                    freeX.push_back(d);
            if (!ok || freeRead != freeX)
                continue;
            folds.byOperand[{i, k}] = std::move(fold);
            folds.skipped[p] = true;
            if (reshape)
                folds.skipped[*reshape] = true;
        }
    }
    return folds;
}

Operation withFolds(const Body& body, const Operation& op, std::size_t index, const TransposeFolds& folds)
{
    Operation out = op;
    std::vector<std::int64_t> shape; // batch, lhs free, rhs free, as StableHLO orders a dot's result
    std::vector<std::int64_t> freeSizes[2];
    for (int k = 0; k < 2; ++k) {
        const std::string side = k == 0 ? "lhs" : "rhs";
        const auto it = folds.byOperand.find({index, k});
        if (it != folds.byOperand.end()) {
            out.operands[static_cast<std::size_t>(k)] = it->second.source;
            out.attributes.set(side + "_batching_dimensions", integerList(it->second.batching));
            out.attributes.set(side + "_contracting_dimensions", integerList(it->second.contracting));
        }
        const std::vector<std::int64_t> operandShape =
            it != folds.byOperand.end() ? it->second.shape
                                        : body.valueTypes.at(op.operands[static_cast<std::size_t>(k)]).shape;
        const auto batching = listOf(out, side + "_batching_dimensions");
        const auto contracting = listOf(out, side + "_contracting_dimensions");
        if (k == 0)
            for (const auto d : batching)
                shape.push_back(operandShape.at(static_cast<std::size_t>(d)));
        for (std::int64_t d = 0; d < static_cast<std::int64_t>(operandShape.size()); ++d)
            if (std::find(batching.begin(), batching.end(), d) == batching.end() &&
                std::find(contracting.begin(), contracting.end(), d) == contracting.end())
                freeSizes[k].push_back(operandShape[static_cast<std::size_t>(d)]);
    }
    shape.insert(shape.end(), freeSizes[0].begin(), freeSizes[0].end());
    shape.insert(shape.end(), freeSizes[1].begin(), freeSizes[1].end());
    out.resultTypes.at(0).shape = shape;
    return out;
}

} // namespace xps::shlo::lower
