// The lowering's driver: inlines calls from the entry function, gives every tensor an HBM buffer, sends
// each op to its kernel (lower_*.cpp) inside a region, and puts every chip's program into a trace whose
// initial HBM holds the module's constants.

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "stablehlo/checks.h"
#include "stablehlo/compile.h"
#include "stablehlo/eval_ops.h"
#include "stablehlo/lower_arguments.h"
#include "stablehlo/lower_expand.h"
#include "stablehlo/lower_fold.h"
#include "stablehlo/lower_fusion.h"
#include "stablehlo/lower_kernels.h"
#include "stablehlo/lower_names.h"
#include "stablehlo/lower_simplify.h"
#include "stablehlo/lower_transpose_fold.h"
#include "stablehlo/tensor_value.h"
#include "trace/trace_validate.h"

namespace xps::shlo {

using lower::identifier;
using lower::lowerFail;
using lower::LoweringError;
using lower::regionName;
using lower::TensorRef;

namespace {

// A tensor of no elements: its op needs no code. (Kernels divide by their tiles and batches: an element-wise
// loop over no tiles divided by the tiles in flight, a batched dot_general of no batches read past its jobs.)
bool noElements(const lower::TensorRef& t)
{
    return t.type.elementCount() == 0;
}

class Lowering
{
public:
    Lowering(const Module& module, const isa::MachineConfig& machine, lower::ChipContext chip,
             std::stop_token stop, bool loops, bool fuse, bool excessPrecision,
             const lower::FoldedModule* folded)
        : m_module(module), m_writer(machine, loops, stop), m_chip(chip), m_stop(std::move(stop)),
          m_fuse(fuse), m_excessPrecision(excessPrecision), m_folded(folded)
    {
    }

    // Writes chip m_chip's copy of the program; the caller puts every chip's into one trace.
    void run()
    {
        const auto* entry = m_module.entry();
        if (!entry)
            lowerFail(m_module.fileName + ": no entry function (public @main)");
        const std::string moduleRegion =
            "module " + (m_module.name.empty() ? m_module.fileName : "@" + m_module.name);
        m_writer.declareRegion(moduleRegion, "layer");
        m_writer.regionBegin(moduleRegion);
        std::vector<TensorRef> args;
        for (std::size_t i = 0; i < entry->body.argumentTypes.size(); ++i) {
            args.push_back(argument(*entry, i));
            m_result.arguments.push_back({args.back().address, args.back().type});
        }
        std::vector<std::uint64_t> argumentBytes;
        for (const TensorRef& a : args)
            argumentBytes.push_back(a.hbmBytes(static_cast<std::uint64_t>(a.type.elementCount()) * 4));
        if (const auto kept = lower::crossProgramPrefetch(*entry, m_writer.machine(), argumentBytes))
            keepInVmem(args[*kept]);
        const auto results = runFunction(*entry, args);
        m_writer.regionEnd();
        m_writer.finish();
        for (const auto& r : results) {
            m_result.results.push_back({r.address, r.type});
            markOutput(r);
        }
        m_writer.name(moduleRegion + " (" + m_module.fileName + ")");
    }

    lower::ProgramWriter& writer() { return m_writer; }
    CompiledModule& result() { return m_result; }
    std::vector<trace::MemoryInit>& inits() { return m_inits; }

private:
    TensorRef allocate(const TensorType& type, const std::string& name)
    {
        std::string unique = identifier(name);
        if (int& n = m_names[unique]; n++ > 0)
            unique += "_" + std::to_string(n);
        TensorRef t;
        t.type = type;
        t.elementBytes = storageBytes(type.element);
        t.address =
            m_writer.hbmBuffer(unique, static_cast<std::uint64_t>(type.elementCount() * t.elementBytes),
                               t.bufferDtype(), type.shape);
        m_bufferNames[t.address] = m_writer.hbmBuffers().back().name;
        return t;
    }

    void markOutput(const TensorRef& t)
    {
        if (const auto it = m_bufferNames.find(t.address);
            it != m_bufferNames.end() && m_outputs.insert(it->second).second)
            m_writer.output(it->second);
    }

    // An argument of the entry function: deterministic inputs (the same ones `check` gives the interpreter).
    TensorRef argument(const Function& f, std::size_t i)
    {
        auto t = allocate(f.body.argumentTypes[i], f.name + "_arg" + std::to_string(i));
        trace::MemoryInit init = lower::argumentInput(f, i, t, m_chip.chip);
        if (init.size > 0)
            m_inits.push_back(std::move(init));
        return t;
    }

    // A cross-program prefetch (lower_arguments.h): the argument's copy in VMEM, initialised as its HBM
    // buffer.
    void keepInVmem(TensorRef& t)
    {
        const auto init = std::find_if(m_inits.begin(), m_inits.end(),
                                       [&](const trace::MemoryInit& i) { return i.address == t.address; });
        if (init == m_inits.end())
            return;
        trace::MemoryInit copy = *init;
        copy.space = isa::Space::Vmem;
        copy.address = m_writer.residentVmem(m_bufferNames[t.address] + "_in_vmem", copy.size,
                                             t.bufferDtype(), t.type.shape);
        t.vmemCopy = copy.address;
        m_inits.push_back(std::move(copy));
    }

    TensorRef constant(const TensorValue& value, const std::string& name)
    {
        if (integerBits(value.type.element) == 64)
            for (std::size_t i = 0; i < value.data.size(); ++i) {
                const double v = value.data[i];
                const bool fits = isUnsigned(value.type.element) ? v < 4294967296.0
                                                                 : v >= -2147483648.0 && v < 2147483648.0;
                if (!fits)
                    lowerFail("the constant's element " +
                              formatIndex(value.type.shape, static_cast<std::int64_t>(i)) + " = " +
                              formatElement(value.type.element, v) +
                              " does not fit 32 bits: 64-bit integers are computed in 32");
            }
        auto t = allocate(value.type, name);
        if (value.data.size() == 1)
            t.scalarConstant = value.data[0];
        trace::MemoryInit init;
        init.space = isa::Space::Hbm;
        init.address = t.address;
        const auto size = static_cast<std::size_t>(t.elementBytes);
        init.size = value.data.size() * size;
        // An element's bits as HBM holds them (a packed one in the low half).
        const auto bitsOf32 = [&](double v) {
            return t.packed() ? static_cast<std::uint32_t>(bitsOf(value.type.element, v))
                              : lower::wordOf(value.type.element, v);
        };
        // Equal doubles first: a splat of millions of elements is then told without rounding each.
        const bool splat =
            value.data.size() > 1 && std::all_of(value.data.begin(), value.data.end(), [&](double v) {
                return std::bit_cast<std::uint64_t>(v) == std::bit_cast<std::uint64_t>(value.data[0]) ||
                       bitsOf32(v) == bitsOf32(value.data[0]);
            });
        if (splat) { // a generator: no bytes in the trace for a tensor of one value
            t.splat =
                value.data[0]; // element-wise kernels broadcast it into a register instead of reading it
            init.payload.isGenerator = true;
            init.payload.generator.kind = trace::Generator::Kind::ConstU32;
            // A packed splat repeats its 2 bytes twice in each 4 (buffers start 4-byte aligned).
            const auto bits = bitsOf32(value.data[0]);
            init.payload.generator.bits = t.packed() ? bits | (bits << 16) : bits;
        } else {
            init.payload.bytes.resize(init.size);
            for (std::size_t i = 0; i < value.data.size(); ++i) {
                const auto bits = bitsOf32(value.data[i]);
                std::memcpy(init.payload.bytes.data() + size * i, &bits,
                            size); // little-endian: the low bytes
            }
        }
        if (init.size > 0)
            m_inits.push_back(std::move(init));
        return t;
    }

    std::string where(const Operation& op) const
    {
        return m_module.fileName + ":" + std::to_string(op.location.line) + ":" +
               std::to_string(op.location.column);
    }

    std::vector<TensorRef> runFunction(const Function& f, const std::vector<TensorRef>& args)
    {
        if (++m_depth > 64)
            lowerFail("calls nested deeper than 64 (recursion?)");
        const std::string region = "@" + f.name;
        m_writer.declareRegion(region, "layer");
        m_writer.regionBegin(region);
        std::vector<TensorRef> values(f.body.valueTypes.size());
        std::copy(args.begin(), args.end(), values.begin());
        static const lower::FoldedBody kNothingFolded;
        const auto foldedBody = m_folded ? m_folded->find(&f.body) : lower::FoldedModule::const_iterator{};
        const lower::FoldedBody& folding =
            m_folded && foldedBody != m_folded->end() ? foldedBody->second : kNothingFolded;
        // A folded value gets its HBM constant when an op that is not folded first reads it.
        std::vector<bool> unwritten(values.size(), false);
        const auto materialize = [&](std::uint32_t v) {
            if (v >= unwritten.size() || !unwritten[v])
                return;
            try {
                values[v] = constant(*folding.values[v], f.name + "_folded_" + std::to_string(v));
            } catch (const LoweringError& e) { // a constant the program cannot hold: where it was folded
                const Operation& by = *folding.foldedBy[v];
                throw LoweringError{where(by) + ": " + std::string(opName(by.kind)) + ": " + e.message};
            }
            unwritten[v] = false;
        };
        const lower::FusionPlan plan = m_fuse ? lower::planFusion(f.body, lower::kElementwiseRegisters,
                                                                  folding.folded, m_excessPrecision)
                                              : lower::FusionPlan{};
        const std::vector<std::int32_t>& rootOf = plan.rootOf;
        const std::vector<bool> inRegisters =
            m_fuse ? lower::registerBroadcasts(f.body) : std::vector<bool>{};
        const auto& fusions = plan.members; // root -> its ops in program order
        const std::vector<std::int32_t> producers =
            m_fuse ? lower::valueUses(f.body).producer : std::vector<std::int32_t>(values.size(), -1);
        std::vector<bool> early(f.body.operations.size(), false); // constants lowered where first read
        const auto biases = m_fuse ? lower::planBiasFusions(f.body, plan, folding.folded, m_excessPrecision)
                                   : std::map<std::size_t, lower::BiasFusion>{};
        std::vector<bool> biasAdded(f.body.operations.size(), false); // adds their dot_general computes
        const lower::TransposeFolds folds =
            m_fuse ? lower::planTransposeFolds(f.body, folding.folded) : lower::TransposeFolds{};
        for (std::size_t i = 0; i < f.body.operations.size(); ++i) {
            // A dot_general reading a transpose's operand instead of its result (lower_transpose_fold.h).
            std::optional<Operation> rewritten;
            if (folds.byOperand.count({i, 0}) + folds.byOperand.count({i, 1}) > 0)
                rewritten = lower::withFolds(f.body, f.body.operations[i], i, folds);
            const Operation& op = rewritten ? *rewritten : f.body.operations[i];
            if (m_stop.stop_requested())
                throw lower::Cancelled{};
            if (i < folding.folded.size() && folding.folded[i]) {
                for (std::size_t r = 0; r < op.resultTypes.size(); ++r)
                    unwritten[op.firstResult + r] = true;
                ++m_result.foldedOps;
                continue;
            }
            if (i < folds.skipped.size() && folds.skipped[i]) {
                ++m_result.freeOps; // folded into the dot_general that reads it
                continue;
            }
            if (i < early.size() && early[i])
                continue; // a constant a kernel before it read
            for (const auto v : op.operands)
                materialize(v);
            if (const auto it = fusions.find(i); it != fusions.end())
                for (const auto member : it->second)
                    for (const auto v : f.body.operations[member].operands) {
                        materialize(v);
                        // A sibling reduction's kernel runs before the constant its initial value is.
                        const std::int32_t p = producers[v];
                        if (p > static_cast<std::int32_t>(i) &&
                            f.body.operations[p].kind == OpKind::Constant &&
                            !early[static_cast<std::size_t>(p)]) {
                            values[v] = lowerOp(f, f.body.operations[p], {}).at(0);
                            early[static_cast<std::size_t>(p)] = true;
                        }
                    }
            if (i < inRegisters.size() && inRegisters[i]) {
                // Read only by element-wise kernels, which hold it in registers: no code.
                const TensorRef& x = values[op.operands[0]];
                TensorRef broadcast = x;
                broadcast.type = op.resultTypes[0];
                broadcast.broadcastStrides = *lower::broadcastStrides(op, x.type, x.broadcastStrides);
                broadcast.splat = x.splat ? x.splat : x.scalarConstant;
                broadcast.scalarConstant.reset();
                values[op.firstResult] = broadcast;
                ++m_result.freeOps;
                continue;
            }
            const auto fusedInto = i < rootOf.size() ? rootOf[i] : -1;
            if ((fusedInto >= 0 && static_cast<std::size_t>(fusedInto) != i) ||
                (i < plan.duplicated.size() && plan.duplicated[i]) || biasAdded[i]) {
                ++m_result.fusedOps; // computed by the kernel of the op it is fused into, later
                continue;
            }
            std::vector<TensorRef> in;
            for (const auto v : op.operands)
                in.push_back(values[v]);
            for (int k = 0; rewritten && k < 2; ++k) // a transpose's operand, as the dot reads it
                if (const auto it = folds.byOperand.find({i, k}); it != folds.byOperand.end())
                    in[static_cast<std::size_t>(k)].type.shape = it->second.shape;
            if (op.kind == OpKind::Return) {
                m_writer.regionEnd();
                --m_depth;
                return in;
            }
            std::optional<lower::DotBias> bias; // an add of a bias fused into this dot_general
            if (const auto b = biases.find(i); b != biases.end()) {
                materialize(b->second.source);
                if (b->second.residual)
                    materialize(b->second.residual->value);
                bias = lower::dotBias(f.body, b->second, values, op.firstResult);
                biasAdded[b->second.add] = true;
                if (b->second.residual)
                    biasAdded[b->second.residual->add] = true;
            }
            std::vector<TensorRef> out;
            try {
                out = fusedInto >= 0 ? lowerFusion(f, i, fusions.at(i), plan.written, values)
                                     : lowerOp(f, op, in, bias ? &*bias : nullptr);
                for (const Operation* added :
                     {bias ? bias->add : nullptr, bias ? bias->residualAdd : nullptr})
                    if (added) { // the same bytes, as the add's result
                        values[added->firstResult] = out.at(0);
                        values[added->firstResult].type = added->resultTypes.at(0);
                    }
            } catch (const LoweringError& e) {
                if (e.message.rfind(m_module.fileName + ":", 0) == 0)
                    throw;
                throw LoweringError{where(op) + ": " + std::string(opName(op.kind)) + ": " + e.message,
                                    e.instructionMemory};
            } catch (const detail::EvalError& e) {
                throw LoweringError{where(op) + ": " + std::string(opName(op.kind)) + ": " + e.message};
            }
            for (std::size_t r = 0; r < out.size(); ++r) {
                values[op.firstResult + r] = out[r];
                if (rewritten) // a folded dot's result, in the shape its readers expect (the same bytes)
                    values[op.firstResult + r].type = f.body.valueTypes[op.firstResult + r];
            }
        }
        lowerFail("@" + f.name + " has no return");
    }

    // The element-wise kernel of the ops `members` of `f` (lower_fusion.h), run where op `root` is: each op's
    // operands are its fused producers' registers or the kernel's inputs, every outside value read once.
    // Every result it writes (the root's, sibling reductions', `written` members') goes into `values` here.
    std::vector<TensorRef> lowerFusion(const Function& f, std::size_t root,
                                       const std::vector<std::size_t>& members,
                                       const std::set<std::size_t>& written, std::vector<TensorRef>& values)
    {
        const auto& ops = f.body.operations;
        const Operation& op = ops[root];
        if (members.size() == 1) {
            std::vector<TensorRef> in;
            for (const auto v : op.operands)
                in.push_back(values[v]);
            return lowerOp(f, op, in);
        }
        const auto nameOf = [&](const Operation& o) {
            return f.name + "_" + (o.resultName.empty() ? std::string("v") : o.resultName.substr(1));
        };
        lower::FusionKernel made;
        try {
            made = lower::fusionKernel(f.body, root, members, written, values, [&](const Operation& o) {
                return allocate(o.resultTypes.at(0), nameOf(o));
            });
        } catch (const lower::MemberError& e) {
            throw LoweringError{where(*e.member) + ": " + std::string(opName(e.member->kind)) + ": " +
                                e.message};
        }
        for (const auto& [member, result] : made.results)
            values[ops[member].firstResult] = result;
        const TensorRef& out = made.out;
        const std::string& fused = made.fused;
        const auto& kernel = made.kernel;
        // The root's region, the fused ops' results named after it: the timeline shows what the kernel holds.
        const std::string region = regionName(op) + " \u00b7 fused " + fused;
        m_writer.declareRegion(region, "op");
        m_writer.sourceLine(m_module.fileName, op.location.line);
        m_writer.regionBegin(region);
        m_writer.beginKernel();
        if (!noElements(out))
            lower::lowerElementwise(m_writer, kernel, out);
        m_writer.regionEnd();
        ++m_result.kernels;
        return {values[op.firstResult]};
    }

    // `bias`: an add of a bias fused into the dot_general `op` (its result is the add's).
    std::vector<TensorRef> lowerOp(const Function& f, const Operation& op, const std::vector<TensorRef>& in,
                                   const lower::DotBias* bias = nullptr)
    {
        const std::string name =
            f.name + "_" + (op.resultName.empty() ? std::string("v") : op.resultName.substr(1));
        if (op.kind == OpKind::Call) {
            const auto* callee = m_module.function(op.callee);
            if (!callee)
                lowerFail("call of @" + op.callee + ", which the module does not define");
            ++m_result.freeOps;
            return runFunction(*callee, in);
        }
        if (isCheckOp(op)) {
            CompiledCheck check{&op, f.name, where(op), {}};
            for (const auto& t : in) {
                check.operands.push_back({t.address, t.type});
                markOutput(t);
            }
            m_result.checks.push_back(std::move(check));
            ++m_result.freeOps;
            std::vector<TensorRef> out;
            for (const auto& t : op.resultTypes) // @check.eq's verdict: not computed on the chip
                out.push_back(allocate(t, name));
            return out;
        }
        if (op.kind == OpKind::Constant || op.kind == OpKind::Iota) {
            detail::WorkMeter meter(std::uint64_t{1} << 32, nullptr);
            const auto value = op.kind == OpKind::Constant ? detail::evalConstant(op, where(op))
                                                           : detail::evalIota(op, meter);
            ++m_result.freeOps;
            return {constant(value, name)};
        }
        const bool unary =
            op.kind == OpKind::Reshape || op.kind == OpKind::Convert || op.kind == OpKind::BroadcastInDim;
        if (unary && (in.size() != 1 || op.resultTypes.size() != 1))
            lowerFail("expected 1 operand and 1 result, has " + std::to_string(in.size()) + " and " +
                      std::to_string(op.resultTypes.size()));
        const bool identityBroadcast = op.kind == OpKind::BroadcastInDim && in[0].type == op.resultTypes[0];
        if (op.kind == OpKind::Reshape || identityBroadcast ||
            (op.kind == OpKind::Convert && lower::sameBytes(in[0].type.element, op.resultTypes[0].element))) {
            // The same bytes under another shape or type: no code.
            if (in[0].type.elementCount() != op.resultTypes[0].elementCount())
                lowerFail("the element count changes");
            auto alias = in[0];
            alias.type = op.resultTypes[0];
            ++m_result.freeOps;
            return {alias};
        }
        if (op.resultTypes.size() != 1 && op.kind != OpKind::Reduce)
            lowerFail("ops with several results have no lowering yet");
        lower::validateOp(op, in);
        std::vector<TensorRef> outs;
        for (std::size_t i = 0; i < op.resultTypes.size(); ++i)
            outs.push_back(allocate(op.resultTypes[i], i == 0 ? name : name + "_" + std::to_string(i)));
        const std::string region =
            regionName(op) + (bias ? " \u00b7 fused " + bias->add->resultName +
                                         (bias->residualAdd ? " " + bias->residualAdd->resultName : "")
                                   : std::string());
        m_writer.declareRegion(region, "op");
        m_writer.sourceLine(m_module.fileName, op.location.line);
        m_writer.regionBegin(region);
        m_writer.beginKernel();
        // Every kernel reads and writes packed (f16/bf16) tensors itself: widening DMAs bring them into VMEM,
        // narrowing ones write results back (lower_kernels.h).
        // A result of no elements has nothing to compute or write: the op's region stays, empty.
        if (!std::all_of(outs.begin(), outs.end(), noElements))
            lower::lowerKernel(m_writer, op, in, outs, m_chip, bias);
        m_writer.regionEnd();
        ++m_result.kernels;
        return outs;
    }

    const Module& m_module;
    lower::ProgramWriter m_writer;
    CompiledModule m_result;
    std::vector<trace::MemoryInit> m_inits;
    std::map<std::string, int> m_names;
    std::map<std::uint64_t, std::string> m_bufferNames;
    std::set<std::string> m_outputs;
    int m_depth = 0;
    lower::ChipContext m_chip;
    std::stop_token m_stop;
    bool m_fuse = true;
    bool m_excessPrecision = false;
    const lower::FoldedModule* m_folded = nullptr; // null: nothing folded
};

} // namespace

namespace {

Result<CompiledModule> compileOnce(const Module& module, const CompileOptions& options, bool loops,
                                   const lower::FoldedModule* folded)
{
    try {
        // One copy of the program per chip (replicas x partitions): group members, ranks and expected
        // arrivals of collectives are constants in each. Buffers are allocated the same way on every chip.
        const int chips = module.numReplicas * module.numPartitions;
        auto machine = options.machine;
        machine.chips = chips;
        // The writers build each chip's program as the assembler would from their text, which is never
        // written: a model's millions of bundles are parsed once, into the trace.
        std::vector<std::unique_ptr<Lowering>> lowerings;
        trace::Trace trace;
        trace.machine = machine;
        for (int c = 0; c < chips; ++c) {
            lowerings.push_back(std::make_unique<Lowering>(module, machine, lower::ChipContext{c, chips},
                                                           options.stop, loops, options.fuse,
                                                           options.excessPrecision, folded));
            lowerings.back()->run();
            auto& w = lowerings.back()->writer();
            if (c == 0)
                trace.name = w.traceName();
            trace.chips.push_back(w.takeChip());
            trace.chips.back().chip = chipIdAt(static_cast<std::size_t>(c));
            trace.chips.back().initial.memory = std::move(lowerings.back()->inits());
        }
        if (options.stop.stop_requested())
            return Error(module.fileName, "cancelled");
        const auto where = [&](const trace::Where& w) {
            return module.fileName + ": " + trace::jsonPathOf(w);
        };
        if (const auto findings = trace::validateTrace(trace, where); !findings.empty())
            lowerFail("the generated program is not a valid trace (a lowering bug): " +
                      findings.front().location + ": " + findings.front().message);
        CompiledModule result = std::move(lowerings.front()->result());
        result.trace = std::move(trace);
        return result;
    } catch (const lower::Cancelled&) {
        return Error(module.fileName, "cancelled");
    } catch (const LoweringError& e) {
        if (e.instructionMemory && !loops && options.loops == CompileOptions::Loops::WhenNeeded)
            return compileOnce(module, options, true, folded);
        const auto split = e.message.find(": ", module.fileName.size());
        if (e.message.rfind(module.fileName + ":", 0) == 0 && split != std::string::npos)
            return Error(e.message.substr(0, split),
                         e.message.substr(split + 2) +
                             (e.instructionMemory && loops ? ", even with its long kernels as loops" : ""));
        return Error(module.fileName, e.message);
    }
}

} // namespace

Result<CompiledModule> compileModule(const Module& given, const CompileOptions& options)
{
    // Batch norms and chlo functions become the ops XLA expands them into, so fusion sees them
    // (lower_expand.h).
    std::shared_ptr<const Module> expanded;
    try {
        if (auto e = lower::expandComposites(given))
            expanded = std::make_shared<const Module>(std::move(*e));
    } catch (const LoweringError& e) {
        const auto split = e.message.find(": ", given.fileName.size());
        if (split == std::string::npos)
            return Error(given.fileName, e.message);
        return Error(e.message.substr(0, split), e.message.substr(split + 2));
    }
    // As XLA compiles it: its algebraic identities applied before constants fold (lower_simplify.h).
    if (options.foldConstants)
        if (auto simplified = lower::simplifyAlgebra(expanded ? *expanded : given))
            expanded = std::make_shared<const Module>(std::move(*simplified));
    const Module& module = expanded ? *expanded : given;
    // Folded once, for every chip's copy of the program and for both attempts (unrolled, then looped).
    const lower::FoldedModule folded =
        options.foldConstants ? lower::foldConstants(module) : lower::FoldedModule{};
    auto compiled = compileOnce(module, options, options.loops == CompileOptions::Loops::Always,
                                options.foldConstants ? &folded : nullptr);
    if (compiled)
        compiled->expanded = std::move(expanded);
    return compiled;
}

} // namespace xps::shlo
