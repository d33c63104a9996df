#include "stablehlo/lower_fusion.h"

#include <algorithm>
#include <map>
#include <set>

#include "stablehlo/attribute.h"

namespace xps::shlo::lower {

namespace {

// An element-wise op with a kernel of its own: not an alias (a conversion that keeps every value's bytes).
bool elementwiseKernel(const Body& body, const Operation& op)
{
    if (elementwiseArity(op.kind) == 0 || op.resultTypes.size() != 1 || op.operands.empty())
        return false;
    return op.kind != OpKind::Convert ||
           !sameBytes(body.valueTypes.at(op.operands[0]).element, op.resultTypes[0].element);
}

// Registers a fusion's intermediate results hold at their peak: each member's result from the member that
// computes it to the last member reading it (the kernel reuses a register once its value is dead), the
// last step's aside (it is v6). A reduce root computes nothing of its own here.
int peakIntermediates(const Body& body, std::vector<std::size_t> members)
{
    std::sort(members.begin(), members.end());
    if (!members.empty() && body.operations[members.back()].kind == OpKind::Reduce)
        members.pop_back();
    std::map<std::uint32_t, std::size_t> definedAt;
    for (std::size_t pos = 0; pos < members.size(); ++pos)
        definedAt[body.operations[members[pos]].firstResult] = pos;
    std::vector<std::size_t> lastUse(members.size(), 0);
    for (std::size_t pos = 0; pos < members.size(); ++pos)
        for (const std::uint32_t v : body.operations[members[pos]].operands)
            if (const auto it = definedAt.find(v); it != definedAt.end())
                lastUse[it->second] = std::max(lastUse[it->second], pos);
    int peak = 0;
    for (std::size_t pos = 0; pos + 1 < members.size(); ++pos) { // the last step's result is v6
        int live = 0;
        for (std::size_t q = 0; q <= pos; ++q)
            live += q == pos || lastUse[q] >= pos ? 1 : 0;
        peak = std::max(peak, live);
    }
    return peak;
}

// The values `members` of `body` read that none of them computes: a fusion's inputs.
std::set<std::uint32_t> inputsOf(const Body& body, const std::vector<std::size_t>& members)
{
    std::set<std::uint32_t> made, read;
    for (const std::size_t m : members)
        for (std::size_t r = 0; r < body.operations[m].resultTypes.size(); ++r)
            made.insert(body.operations[m].firstResult + static_cast<std::uint32_t>(r));
    for (const std::size_t m : members)
        for (const std::uint32_t v : body.operations[m].operands)
            if (!made.count(v))
                read.insert(v);
    return read;
}

// Two fusions' members as one, in program order.
std::vector<std::size_t> unionOf(std::vector<std::size_t> a, const std::vector<std::size_t>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    return a;
}

// The registers the reductions among `members` keep (reductionRegisters).
int reductionRegistersIn(const Body& body, const std::vector<std::size_t>& members)
{
    int n = 0;
    for (const std::size_t m : members)
        n += body.operations[m].kind == OpKind::Reduce ? reductionRegisters(body.operations[m]) : 0;
    return n;
}

// Sibling reductions (XLA's multi-output fusion): a reduce summing rows like an earlier one (the same width
// and rows, the same result type), with the ops fused into it, joins that one's kernel when the two read an
// input in common, so the rows stream once for both (a layer norm's sum of x and sum of squares). A reduce
// of an input as it is joins too, as long as the kernel computes something. The kernel runs where the
// earlier reduce is, so the later one's inputs must be computed by then (a constant is, wherever it stands:
// it is written when first read); their registers (inputs, two per reduction, the intermediates of both)
// must fit.
void mergeSiblingReductions(const Body& body, FusionPlan& plan, int registers, const ValueUses& uses,
                            const std::vector<bool>& excluded)
{
    const auto& ops = body.operations;
    // Where the op computing a value runs; -1: ready from the start (an argument, a folded value, a
    // constant).
    const auto emittedAt = [&](std::int32_t p) -> std::int32_t {
        if (p < 0)
            return -1;
        const auto u = static_cast<std::size_t>(p);
        if ((u < excluded.size() && excluded[u]) || ops[u].kind == OpKind::Constant)
            return -1;
        return plan.rootOf[u] >= 0 ? plan.rootOf[u] : p;
    };
    const auto rowsOf = [&](std::size_t root) {
        return std::make_pair(fusibleReduceWidth(body, ops[root]),
                              body.valueTypes[ops[root].operands[0]].elementCount());
    };
    // Every reduction fusion, and every reduce that could root one but has nothing fused into it.
    std::map<std::size_t, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const auto it = plan.members.find(i);
        if (ops[i].kind == OpKind::Reduce && it != plan.members.end())
            groups[i] = it->second;
        else if (ops[i].kind == OpKind::Reduce && plan.rootOf[i] < 0 &&
                 !(i < excluded.size() && excluded[i]) && fusibleReduceWidth(body, ops[i]) > 0)
            groups[i] = {i};
    }
    // Which group each op is in (-1: none), so that only groups reading an input in common are compared.
    std::vector<std::int64_t> groupOf(ops.size(), -1);
    for (const auto& [root, members] : groups)
        for (const std::size_t m : members)
            groupOf[m] = static_cast<std::int64_t>(root);
    for (auto first = groups.begin(); first != groups.end(); ++first) {
        const std::size_t r1 = first->first;
        for (bool grew = true; grew;) {
            grew = false;
            std::set<std::uint32_t> inputs = inputsOf(body, first->second);
            std::set<std::size_t> candidates; // later groups reading one of these inputs
            for (const std::uint32_t v : inputs) {
                if (uses.producer[v] >= 0 && emittedAt(uses.producer[v]) < 0)
                    continue; // a constant: every reduce's zero
                for (const std::size_t reader : uses.readers[v])
                    if (groupOf[reader] > static_cast<std::int64_t>(r1))
                        candidates.insert(static_cast<std::size_t>(groupOf[reader]));
            }
            for (const std::size_t r2 : candidates) {
                const auto second = groups.find(r2);
                if (second == groups.end())
                    continue;
                const std::set<std::uint32_t> inputs2 = inputsOf(body, second->second);
                const bool sibling = rowsOf(r2) == rowsOf(r1) &&
                                     ops[r2].resultTypes[0].element == ops[r1].resultTypes[0].element &&
                                     std::any_of(inputs2.begin(), inputs2.end(),
                                                 [&](std::uint32_t v) {
                                                     return inputs.count(v) && v != ops[r2].operands[1];
                                                 }) &&
                                     std::all_of(inputs2.begin(), inputs2.end(), [&](std::uint32_t v) {
                                         return emittedAt(uses.producer[v]) < static_cast<std::int32_t>(r1);
                                     });
                std::vector<std::size_t> merged = unionOf(first->second, second->second);
                std::set<std::uint32_t> both = inputs;
                both.insert(inputs2.begin(), inputs2.end());
                if (!sibling || static_cast<int>(both.size()) + reductionRegistersIn(body, merged) +
                                        peakIntermediates(body, first->second) +
                                        peakIntermediates(body, second->second) >
                                    registers)
                    continue;
                for (const std::size_t m : second->second)
                    groupOf[m] = static_cast<std::int64_t>(r1);
                first->second = std::move(merged);
                groups.erase(second);
                grew = true;
                break; // its inputs grew: look again
            }
        }
        // A kernel of reductions alone (a lone reduce among them) computes nothing to sum: each stays a
        // reduce of its own.
        if (std::all_of(first->second.begin(), first->second.end(),
                        [&](std::size_t m) { return ops[m].kind == OpKind::Reduce; }))
            continue;
        plan.members.erase(r1);
        for (const std::size_t m : first->second) {
            if (m != r1 && plan.members.count(m))
                plan.members.erase(m);
            if (!plan.duplicated[m])
                plan.rootOf[m] = static_cast<std::int32_t>(r1);
        }
        plan.members[r1] = first->second;
    }
}

// Multi-output fusion of a producer (XLA's): a fusion whose result one other fusion could compute, but
// which other ops read too (a softmax's exponential, read by its sum and by the division; a layer norm's
// mean, read by its variance and by the normalisation), joins that fusion, whose kernel writes the result
// as a second output: one kernel fewer, its inputs read once for both. The kernel runs where the
// consumer's runs, so every other reader of the value must run after it; a reduce with nothing fused into
// it becomes such a consumer. An f16 or bf16 value joins only with excess precision (the consumer reads it
// unrounded).
void mergeProducerOutputs(const Body& body, FusionPlan& plan, int registers, const ValueUses& uses,
                          const std::vector<bool>& excluded, bool excessPrecision)
{
    const auto& ops = body.operations;
    const auto emittedAt = [&](std::size_t op) {
        return plan.rootOf[op] >= 0 ? static_cast<std::size_t>(plan.rootOf[op]) : op;
    };
    const auto computed = [&](std::size_t root) { // the elements a fusion's kernel computes
        const Operation& op = ops[root];
        return op.kind == OpKind::Reduce ? body.valueTypes[op.operands[0]].elementCount()
                                         : op.resultTypes[0].elementCount();
    };
    for (auto producer = plan.members.begin(); producer != plan.members.end();) {
        const std::size_t a = producer->first;
        const Operation& made = ops[a];
        std::optional<std::size_t> consumer;
        bool mergeable = made.kind != OpKind::Reduce && elementwiseKernel(body, made) &&
                         !plan.written.count(a) &&
                         (storageBytes(made.resultTypes[0].element) == 4 || excessPrecision);
        static const std::vector<std::size_t> none;
        const std::vector<std::size_t>& readers = mergeable ? uses.readers[made.firstResult] : none;
        for (const std::size_t r : readers) { // the first reader a fusion can compute the value in
            const bool standaloneReduce = plan.rootOf[r] < 0 && !(r < excluded.size() && excluded[r]) &&
                                          fusibleReduceWidth(body, ops[r]) > 0 &&
                                          ops[r].operands[0] == made.firstResult;
            const bool inFusion = plan.rootOf[r] >= 0 && !plan.duplicated[r] &&
                                  (elementwiseArity(ops[r].kind) > 0 || ops[r].kind == OpKind::Reduce);
            if (standaloneReduce || inFusion) {
                consumer = standaloneReduce ? r : static_cast<std::size_t>(plan.rootOf[r]);
                break;
            }
        }
        mergeable = mergeable && consumer && *consumer > a &&
                    computed(*consumer) == made.resultTypes[0].elementCount();
        const auto own = consumer ? plan.members.find(*consumer) : plan.members.end();
        const std::vector<std::size_t> consumerMembers =
            own != plan.members.end() ? own->second : std::vector<std::size_t>{consumer.value_or(0)};
        for (const std::size_t r : readers) // every other reader runs after the consumer's kernel
            mergeable = mergeable && (std::find(consumerMembers.begin(), consumerMembers.end(), r) !=
                                          consumerMembers.end() ||
                                      emittedAt(r) > *consumer);
        if (mergeable) {
            std::vector<std::size_t> merged = unionOf(consumerMembers, producer->second);
            // Inputs, the reductions' registers, both fusions' intermediates and the written value's.
            mergeable = static_cast<int>(inputsOf(body, merged).size()) + reductionRegistersIn(body, merged) +
                            peakIntermediates(body, producer->second) +
                            peakIntermediates(body, consumerMembers) + 1 <=
                        registers;
            if (mergeable) {
                for (const std::size_t m : producer->second)
                    if (!plan.duplicated[m])
                        plan.rootOf[m] = static_cast<std::int32_t>(*consumer);
                plan.rootOf[*consumer] = static_cast<std::int32_t>(*consumer);
                plan.written.insert(a);
                plan.members[*consumer] = std::move(merged);
                producer = plan.members.erase(producer);
                continue;
            }
        }
        ++producer;
    }
}

} // namespace

ValueUses valueUses(const Body& body)
{
    ValueUses uses{std::vector<std::vector<std::size_t>>(body.valueTypes.size()),
                   std::vector<std::int32_t>(body.valueTypes.size(), -1)};
    for (std::size_t i = 0; i < body.operations.size(); ++i) {
        const Operation& op = body.operations[i];
        for (const std::uint32_t v : op.operands)
            if (v < uses.readers.size())
                uses.readers[v].push_back(i);
        for (std::size_t r = 0; r < op.resultTypes.size(); ++r)
            if (op.firstResult + r < uses.producer.size())
                uses.producer[op.firstResult + r] = static_cast<std::int32_t>(i);
    }
    return uses;
}

bool sameBytes(ElementType from, ElementType to)
{
    if (from == to)
        return true;
    if (isFloat(from) || isFloat(to) || to == ElementType::I1)
        return false;
    // Integers are 32-bit words holding their value modulo 2^32 (storageBytes): a conversion to 32 or 64
    // bits keeps that, and so does one to a narrower type that holds every value of the source as it is.
    const int fromBits = integerBits(from), toBits = integerBits(to);
    if (toBits >= 32 || from == ElementType::I1)
        return true;
    return fromBits < toBits && (isUnsigned(from) || !isUnsigned(to));
}

int reductionRegisters(const Operation& reduce)
{
    // The running values and the initial one; a maximum's NaN witness and its initial value too.
    return reduce.regions.empty() || reduce.regions[0].operations.empty() ||
                   reduce.regions[0].operations[0].kind != OpKind::Maximum
               ? 2
               : 4;
}

std::int64_t fusibleReduceWidth(const Body& body, const Operation& op)
{
    // One add or maximum over the innermost dimension of a float operand, rows of a multiple of 128 in
    // groups of 8.
    if (op.kind != OpKind::Reduce || op.operands.size() != 2 || op.resultTypes.size() != 1 ||
        op.regions.size() != 1 || op.operands[0] >= body.valueTypes.size())
        return 0;
    const auto& region = op.regions[0].operations;
    if (region.size() != 2 || (region[0].kind != OpKind::Add && region[0].kind != OpKind::Maximum) ||
        region[0].operands.size() != 2 || region[0].operands[0] > 1 || region[0].operands[1] > 1 ||
        region[1].operands.size() != 1 || region[1].operands[0] != 2)
        return 0;
    const TensorType& x = body.valueTypes[op.operands[0]];
    const Attribute* attribute = op.attributes.find("dimensions");
    const auto dims = attribute ? attribute->integers() : std::nullopt;
    // The innermost dimension, and any others of size 1 (a batch norm's sum over a batch of 1).
    if (!isFloat(x.element) || x.shape.empty() || !dims ||
        std::find(dims->begin(), dims->end(), static_cast<std::int64_t>(x.shape.size()) - 1) == dims->end())
        return 0;
    for (const auto d : *dims)
        if (d < 0 || d >= static_cast<std::int64_t>(x.shape.size()) ||
            (d + 1 != static_cast<std::int64_t>(x.shape.size()) && x.shape[static_cast<std::size_t>(d)] != 1))
            return 0;
    const std::int64_t width = x.shape.back();
    const std::int64_t rows = width > 0 ? x.elementCount() / width : 0;
    // Up to 4096: 8 rows of every input stream, four in flight, stay a few MiB of VMEM.
    return width % 128 == 0 && width <= 4096 && rows > 0 && rows % 8 == 0 ? width : 0;
}

FusionPlan planFusion(const Body& body, int registers, const std::vector<bool>& excluded,
                      bool excessPrecision)
{
    const auto isExcluded = [&](std::size_t i) { return i < excluded.size() && excluded[i]; };
    const auto& ops = body.operations;
    FusionPlan plan;
    plan.rootOf.assign(ops.size(), -1);
    plan.duplicated.assign(ops.size(), false);
    const ValueUses uses = valueUses(body);
    const auto& readers = uses.readers;
    const auto& producer = uses.producer;
    const auto joinable = [&](const Operation& op) {
        const bool alias = op.kind == OpKind::Convert && op.resultTypes.size() == 1 && !op.operands.empty() &&
                           op.operands[0] < body.valueTypes.size() &&
                           sameBytes(body.valueTypes[op.operands[0]].element, op.resultTypes[0].element);
        return (elementwiseKernel(body, op) || alias) &&
               (storageBytes(op.resultTypes[0].element) == 4 || excessPrecision);
    };
    const auto reduceRoot = [&](std::size_t i) {
        return !isExcluded(i) && fusibleReduceWidth(body, ops[i]) > 0;
    };
    // A conversion whose every reader is a fusion that can take it is computed in each of them, never
    // written out (XLA duplicates such cheap producers into their consumers): a layer norm's f32 copy of
    // its f16 input feeds two reductions and the normalisation. Its own operands are those fusions' inputs.
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const Operation& op = ops[i];
        if (op.kind != OpKind::Convert || isExcluded(i) || !joinable(op) ||
            op.firstResult >= readers.size() || readers[op.firstResult].size() < 2)
            continue;
        bool allFuse = true;
        for (const std::size_t r : readers[op.firstResult])
            allFuse = allFuse && !isExcluded(r) &&
                      ((joinable(ops[r]) &&
                        ops[r].resultTypes[0].elementCount() == op.resultTypes[0].elementCount()) ||
                       (reduceRoot(r) && ops[r].operands[0] == op.firstResult));
        plan.duplicated[i] = allFuse;
    }
    // From the last op back: each element-wise op (or fusible reduce) not yet in a fusion roots one, and
    // takes in every operand whose producer can join (element-wise, read by this fusion only or duplicated;
    // an f16 or bf16 intermediate only with excess precision, as it is rounded on its way through HBM and
    // fused it is not), while the registers last. A reduce root keeps two registers for its sums.
    for (std::size_t r = ops.size(); r-- > 0;) {
        if (plan.rootOf[r] >= 0 || isExcluded(r) || plan.duplicated[r])
            continue;
        const bool reduce = reduceRoot(r);
        if (!reduce && !elementwiseKernel(body, ops[r]))
            continue;
        const auto root = static_cast<std::int32_t>(r);
        plan.rootOf[r] = root;
        std::vector<std::size_t>& members = plan.members[r];
        members.push_back(r);
        const std::int64_t elements = reduce ? body.valueTypes[ops[r].operands[0]].elementCount()
                                             : ops[r].resultTypes[0].elementCount();
        // A reduce's kernel computes its operand (operand 0); its initial value is an input.
        std::vector<std::uint32_t> pending = reduce ? std::vector<std::uint32_t>{ops[r].operands[0]}
                                                    : std::vector<std::uint32_t>(ops[r].operands);
        std::set<std::uint32_t> inputs(ops[r].operands.begin(), ops[r].operands.end());
        const int budget = reduce ? registers - reductionRegisters(ops[r]) : registers;
        // A value several ops read joins once every one of them has: computed once, it stays in a register
        // for all of them (an asinh reads |x| four times). Until then it waits in `deferred`. A duplicated
        // conversion's operand is read by other fusions too: it stays an input.
        const auto readOnlyHere = [&](std::uint32_t v) {
            return std::all_of(readers[v].begin(), readers[v].end(), [&](std::size_t reader) {
                return !plan.duplicated[reader] &&
                       std::find(members.begin(), members.end(), reader) != members.end();
            });
        };
        std::vector<std::uint32_t> deferred;

        while (true) {
            if (pending.empty()) { // retry the values whose readers have all joined since
                for (auto it = deferred.begin(); it != deferred.end();)
                    if (readOnlyHere(*it)) {
                        pending.push_back(*it);
                        it = deferred.erase(it);
                    } else {
                        ++it;
                    }
                if (pending.empty())
                    break;
            }
            const std::uint32_t v = pending.back();
            pending.pop_back();
            const std::int32_t p = v < producer.size() ? producer[v] : -1;
            if (p < 0 || !inputs.count(v))
                continue;
            const auto u = static_cast<std::size_t>(p);
            const bool duplicate = plan.duplicated[u];
            if ((!duplicate && plan.rootOf[u] >= 0) || isExcluded(u) || !joinable(ops[u]) ||
                ops[u].resultTypes[0].elementCount() != elements)
                continue;
            if (!duplicate && !readOnlyHere(v)) {
                if (std::find(deferred.begin(), deferred.end(), v) == deferred.end())
                    deferred.push_back(v);
                continue;
            }
            std::set<std::uint32_t> grown = inputs;
            grown.erase(v);
            grown.insert(ops[u].operands.begin(), ops[u].operands.end());
            std::vector<std::size_t> trial = members;
            trial.push_back(u);
            if (static_cast<int>(grown.size()) + peakIntermediates(body, trial) > budget)
                continue;
            inputs = std::move(grown);
            members.push_back(u);
            if (!duplicate) {
                plan.rootOf[u] = root;
                pending.insert(pending.end(), ops[u].operands.begin(), ops[u].operands.end());
            }
        }
        if (reduce && members.size() == 1) { // nothing to fuse: the reduce kernel of its own
            plan.rootOf[r] = -1;
            plan.members.erase(r);
            continue;
        }
        std::sort(members.begin(), members.end());
    }
    // A duplicated conversion some reader's fusion could not take (its registers ran out) is written out
    // after all, by a kernel of its own; the fusions that took it still compute it.
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (!plan.duplicated[i])
            continue;
        bool everywhere = true;
        for (const std::size_t r : readers[ops[i].firstResult]) {
            const std::int32_t root = plan.rootOf[r];
            const auto it =
                root >= 0 ? plan.members.find(static_cast<std::size_t>(root)) : plan.members.end();
            everywhere = everywhere && it != plan.members.end() &&
                         std::binary_search(it->second.begin(), it->second.end(), i);
        }
        if (!everywhere) {
            plan.duplicated[i] = false;
            plan.rootOf[i] = static_cast<std::int32_t>(i);
            plan.members[i] = {i};
        }
    }
    mergeSiblingReductions(body, plan, registers, uses, excluded);
    mergeProducerOutputs(body, plan, registers, uses, excluded, excessPrecision);
    return plan;
}

std::optional<std::vector<std::int64_t>> broadcastStrides(const Operation& op, const TensorType& operand,
                                                          const std::vector<std::int64_t>& operandStrides)
{
    if (op.kind != OpKind::BroadcastInDim || op.resultTypes.size() != 1)
        return std::nullopt;
    const TensorType& out = op.resultTypes[0];
    const Attribute* attribute = op.attributes.find("broadcast_dimensions");
    const auto dims = attribute ? attribute->integers() : std::nullopt;
    if (!dims || dims->size() != operand.shape.size() || out.shape.empty())
        return std::nullopt;
    std::vector<std::int64_t> inner = operandStrides;
    if (inner.empty()) { // row-major; a dimension of size 1 is never stepped along
        inner.assign(operand.shape.size(), 0);
        for (std::int64_t d = static_cast<std::int64_t>(operand.shape.size()) - 1, stride = 1; d >= 0; --d) {
            const auto u = static_cast<std::size_t>(d);
            inner[u] = operand.shape[u] == 1 ? 0 : stride;
            stride *= operand.shape[u];
        }
    }
    if (inner.size() != operand.shape.size())
        return std::nullopt;
    std::vector<std::int64_t> strides(out.shape.size(), 0);
    std::int64_t previous = -1;
    for (std::size_t k = 0; k < dims->size(); ++k) {
        const std::int64_t d = (*dims)[k];
        if (d <= previous || d >= static_cast<std::int64_t>(out.shape.size()))
            return std::nullopt;
        previous = d;
        const auto u = static_cast<std::size_t>(d);
        if (operand.shape[k] == out.shape[u])
            strides[u] = inner[k];
        else if (operand.shape[k] != 1)
            return std::nullopt;
    }
    return strides;
}

std::vector<bool> registerBroadcasts(const Body& body)
{
    const auto& ops = body.operations;
    std::vector<bool> inRegisters(ops.size(), false);
    // Readers come after their producers: from the last op back, each reader's fate is known.
    std::vector<bool> readByOthers(body.valueTypes.size(), false);
    for (std::size_t i = ops.size(); i-- > 0;) {
        const Operation& op = ops[i];
        if (op.kind == OpKind::BroadcastInDim && op.operands.size() == 1 &&
            op.firstResult < readByOthers.size() && op.operands[0] < body.valueTypes.size())
            inRegisters[i] = !readByOthers[op.firstResult] &&
                             broadcastStrides(op, body.valueTypes[op.operands[0]]).has_value();
        if (!inRegisters[i] && !elementwiseKernel(body, op))
            for (const std::uint32_t v : op.operands)
                if (v < readByOthers.size())
                    readByOthers[v] = true;
    }
    return inRegisters;
}

} // namespace xps::shlo::lower
