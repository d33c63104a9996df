#include "stablehlo/interpreter.h"

#include <cmath>
#include <optional>

#include "stablehlo/checks.h"
#include "stablehlo/eval_collectives.h"
#include "stablehlo/eval_ops.h"

#include <thread>

namespace xps::shlo {

using detail::EvalError;
using detail::evalFail;
using detail::Inputs;
using ValuePtr = std::shared_ptr<const TensorValue>;

struct Interpreter::State : detail::RegionRunner
{
    const Module& module;
    InterpreterLimits limits;
    detail::WorkMeter meter;
    std::vector<CheckOutcome> checks;
    int callDepth = 0;
    ProcessContext process;
    std::uint64_t collectives = 0; // this process's collectives so far: the meeting's sequence number

    State(const Module& m, InterpreterLimits l, const std::atomic<bool>* cancel, ProcessContext p)
        : module(m), limits(l), meter(l.maxWork, cancel), process(p)
    {
    }

    std::string where(const Operation& op) const
    {
        return module.fileName + ":" + std::to_string(op.location.line) + ":" +
               std::to_string(op.location.column);
    }

    std::vector<ValuePtr> runBody(const Body& body, std::vector<ValuePtr> args, const std::string& function);
    std::vector<ValuePtr> evaluate(const Operation& op, const Inputs& in, const std::string& function);

    // A reducer: one element-wise op of two arguments is applied directly; anything else runs as a body.
    void apply(const Body& region, const std::vector<double>& args, std::vector<double>& results) override
    {
        const auto& ops = region.operations;
        if (ops.size() == 2 && args.size() == 2 && elementwiseArity(ops[0].kind) == 2 &&
            ops[0].kind != OpKind::Compare && ops[0].operands.size() == 2 && ops[0].operands[0] < 2 &&
            ops[0].operands[1] < 2 && ops[1].operands.size() == 1 && ops[1].operands[0] == 2) {
            const auto type = region.argumentTypes[0].element;
            results[0] = roundTo(type, detail::applyBinary(ops[0].kind, type, args[ops[0].operands[0]],
                                                           args[ops[0].operands[1]]));
            return;
        }
        std::vector<ValuePtr> values;
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (!region.argumentTypes[i].shape.empty())
                evalFail("a reducer's arguments must be scalars");
            values.push_back(
                std::make_shared<const TensorValue>(TensorValue{region.argumentTypes[i], {args[i]}}));
        }
        const auto out = runBody(region, std::move(values), "a reducer");
        if (out.size() != results.size())
            evalFail("the reducer returns " + std::to_string(out.size()) + " values; " +
                     std::to_string(results.size()) + " expected");
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out[i]->data.size() != 1)
                evalFail("a reducer must return scalars");
            results[i] = out[i]->data[0];
        }
    }
};

Result<std::vector<TensorValue>> Interpreter::evaluateOne(const Module& module, const Operation& op,
                                                          const std::vector<const TensorValue*>& operands,
                                                          InterpreterLimits limits)
{
    State state(module, limits, nullptr, {});
    try {
        std::vector<TensorValue> out;
        for (const auto& v : state.evaluate(op, operands, "constant folding"))
            out.push_back(*v);
        return out;
    } catch (const EvalError& e) {
        return Error(state.where(op), std::string(opName(op.kind)) + ": " + e.message);
    }
}

std::vector<ValuePtr> Interpreter::State::runBody(const Body& body, std::vector<ValuePtr> args,
                                                  const std::string& function)
{
    std::vector<ValuePtr> values(body.valueTypes.size());
    for (std::size_t i = 0; i < args.size(); ++i)
        values[i] = std::move(args[i]);
    for (const auto& op : body.operations) {
        Inputs in;
        in.reserve(op.operands.size());
        for (const auto v : op.operands)
            in.push_back(values[v].get());
        if (op.kind == OpKind::Return) {
            std::vector<ValuePtr> out;
            for (const auto v : op.operands)
                out.push_back(values[v]);
            return out;
        }
        std::vector<ValuePtr> results;
        try {
            if (op.kind == OpKind::Call) {
                const auto* callee = module.function(op.callee);
                if (!callee)
                    evalFail("call of @" + op.callee + ", which the module does not define");
                if (callee->body.argumentTypes.size() != op.operands.size())
                    evalFail("@" + op.callee + " takes " + std::to_string(callee->body.argumentTypes.size()) +
                             " arguments");
                for (std::size_t i = 0; i < op.operands.size(); ++i)
                    if (in[i]->type != callee->body.argumentTypes[i])
                        evalFail("argument " + std::to_string(i) + " is " + in[i]->type.toString() + "; @" +
                                 op.callee + " takes " + callee->body.argumentTypes[i].toString());
                if (++callDepth > limits.maxCallDepth)
                    evalFail("calls nested deeper than " + std::to_string(limits.maxCallDepth) +
                             " (recursion?)");
                std::vector<ValuePtr> callArgs;
                for (const auto v : op.operands)
                    callArgs.push_back(values[v]);
                results = runBody(callee->body, std::move(callArgs), callee->name);
                --callDepth;
            } else {
                results = evaluate(op, in, function);
            }
        } catch (const EvalError& e) {
            // Errors from nested bodies already carry their place; the outermost op adds its own.
            if (e.message.rfind(module.fileName + ":", 0) == 0)
                throw;
            throw EvalError{where(op) + ": " + std::string(opName(op.kind)) + ": " + e.message};
        }
        if (results.size() != op.resultTypes.size())
            throw EvalError{where(op) + ": the op produced " + std::to_string(results.size()) +
                            " values for " + std::to_string(op.resultTypes.size()) + " results"};
        for (std::size_t i = 0; i < results.size(); ++i) {
            if (results[i]->type != op.resultTypes[i])
                throw EvalError{where(op) + ": the op computed " + results[i]->type.toString() +
                                " for a result declared " + op.resultTypes[i].toString()};
            values[op.firstResult + i] = std::move(results[i]);
        }
    }
    evalFail("a body without a return");
}

std::vector<ValuePtr> Interpreter::State::evaluate(const Operation& op, const Inputs& in,
                                                   const std::string& function)
{
    for (const auto& t : op.resultTypes)
        if (t.elementCount() > limits.maxTensorElements)
            evalFail("a result of " + std::to_string(t.elementCount()) +
                     " elements; the reference interpreter holds at most " +
                     std::to_string(limits.maxTensorElements));
    const auto one = [](TensorValue v) {
        return std::vector<ValuePtr>{std::make_shared<const TensorValue>(std::move(v))};
    };
    const auto many = [](std::vector<TensorValue> vs) {
        std::vector<ValuePtr> out;
        for (auto& v : vs)
            out.push_back(std::make_shared<const TensorValue>(std::move(v)));
        return out;
    };
    if (isCheckOp(op)) {
        auto outcome = evaluateCheck(op, in, where(op));
        outcome.function = function;
        const bool passed = outcome.passed;
        checks.push_back(std::move(outcome));
        std::vector<ValuePtr> out;
        for (const auto& t : op.resultTypes) // @check.eq yields its verdict as an i1 tensor
            out.push_back(std::make_shared<const TensorValue>(TensorValue{
                t, std::vector<double>(static_cast<std::size_t>(t.elementCount()), passed ? 1.0 : 0.0)}));
        return out;
    }
    if (elementwiseArity(op.kind) > 0) {
        if (static_cast<int>(in.size()) != elementwiseArity(op.kind) || op.resultTypes.size() != 1)
            evalFail("expected " + std::to_string(elementwiseArity(op.kind)) + " operands and one result");
        return one(detail::evalElementwise(op, in, meter));
    }
    const auto needs = [&](std::size_t operands) {
        if (in.size() != operands || op.resultTypes.size() != 1)
            evalFail("expected " + std::to_string(operands) + " operands and one result");
    };
    switch (op.kind) {
    case OpKind::Constant: needs(0); return one(detail::evalConstant(op, where(op)));
    case OpKind::BroadcastInDim: needs(1); return one(detail::evalBroadcastInDim(op, in, meter));
    case OpKind::Reshape: needs(1); return one(detail::evalReshape(op, in, meter));
    case OpKind::Transpose: needs(1); return one(detail::evalTranspose(op, in, meter));
    case OpKind::Slice: needs(1); return one(detail::evalSlice(op, in, meter));
    case OpKind::Concatenate:
        if (in.empty())
            evalFail("concatenate needs operands");
        needs(in.size());
        return one(detail::evalConcatenate(op, in, meter));
    case OpKind::Pad: needs(2); return one(detail::evalPad(op, in, meter));
    case OpKind::Iota: needs(0); return one(detail::evalIota(op, meter));
    case OpKind::Reverse: needs(1); return one(detail::evalReverse(op, in, meter));
    case OpKind::Gather: needs(2); return one(detail::evalGather(op, in, meter));
    case OpKind::Scatter: return many(detail::evalScatter(op, in, *this, meter));
    case OpKind::DynamicSlice: return one(detail::evalDynamicSlice(op, in, meter));
    case OpKind::DynamicUpdateSlice: return one(detail::evalDynamicUpdateSlice(op, in, meter));
    case OpKind::BatchNormTraining: return many(detail::evalBatchNormTraining(op, in, meter));
    case OpKind::BatchNormInference: return one(detail::evalBatchNormInference(op, in, meter));
    case OpKind::Reduce: return many(detail::evalReduce(op, in, *this, meter));
    case OpKind::ReduceWindow: return many(detail::evalReduceWindow(op, in, *this, meter));
    case OpKind::DotGeneral:
    case OpKind::Dot: needs(2); return one(detail::evalDotGeneral(op, in, meter));
    case OpKind::Convolution: needs(2); return one(detail::evalConvolution(op, in, meter));
    case OpKind::AllGather:
    case OpKind::AllReduce:
    case OpKind::ReduceScatter:
    case OpKind::CollectivePermute: {
        needs(1);
        auto mine = std::make_shared<const TensorValue>(*in[0]);
        const auto operands =
            process.rendezvous ? process.rendezvous->exchange(collectives++, process.process, std::move(mine))
                               : std::vector<std::shared_ptr<const TensorValue>>{std::move(mine)};
        return one(detail::evalCollective(op, process.process, operands, *this, meter));
    }
    case OpKind::CustomCall:
        evalFail("unsupported custom_call @" + op.callee + "; the subset has the check.* targets only");
    default: evalFail("not evaluated by the reference interpreter");
    }
}

Interpreter::Interpreter(const Module& module, InterpreterLimits limits, const std::atomic<bool>* cancel,
                         ProcessContext process)
    : m_state(std::make_unique<State>(module, limits, cancel, process))
{
}

Interpreter::~Interpreter() = default;

Result<std::vector<TensorValue>> Interpreter::run(const Function& function,
                                                  const std::vector<TensorValue>& arguments)
{
    const auto& types = function.body.argumentTypes;
    if (arguments.size() != types.size())
        return Error(m_state->module.fileName, "@" + function.name + " takes " +
                                                   std::to_string(types.size()) + " arguments; " +
                                                   std::to_string(arguments.size()) + " given");
    std::vector<ValuePtr> args;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        if (arguments[i].type != types[i] ||
            arguments[i].data.size() != static_cast<std::size_t>(types[i].elementCount()))
            return Error(m_state->module.fileName, "argument " + std::to_string(i) + " of @" + function.name +
                                                       " must be " + types[i].toString());
        args.push_back(std::make_shared<const TensorValue>(arguments[i]));
    }
    try {
        m_state->callDepth = 0;
        const auto out = m_state->runBody(function.body, std::move(args), function.name);
        std::vector<TensorValue> results;
        for (const auto& v : out)
            results.push_back(*v);
        return results;
    } catch (const EvalError& e) {
        const auto colon = e.message.find(": ", m_state->module.fileName.size());
        if (e.message.rfind(m_state->module.fileName + ":", 0) == 0 && colon != std::string::npos)
            return Error(e.message.substr(0, colon), e.message.substr(colon + 2));
        return Error(m_state->module.fileName, e.message);
    }
}

const std::vector<CheckOutcome>& Interpreter::checks() const
{
    return m_state->checks;
}
std::uint64_t Interpreter::work() const
{
    return m_state->meter.used();
}

Result<std::vector<std::vector<TensorValue>>>
runProcesses(const Module& module, const Function& function,
             const std::vector<std::vector<TensorValue>>& arguments, InterpreterLimits limits,
             const std::atomic<bool>* cancel, std::vector<CheckOutcome>* checks)
{
    const int processes = static_cast<int>(arguments.size());
    if (processes == 1) {
        Interpreter interpreter(module, limits, cancel);
        auto out = interpreter.run(function, arguments[0]);
        if (checks)
            checks->insert(checks->end(), interpreter.checks().begin(), interpreter.checks().end());
        if (!out)
            return out.error();
        return std::vector<std::vector<TensorValue>>{std::move(*out)};
    }
    detail::Rendezvous rendezvous(processes);
    std::vector<std::optional<Result<std::vector<TensorValue>>>> results(static_cast<std::size_t>(processes));
    std::vector<std::vector<CheckOutcome>> outcomes(static_cast<std::size_t>(processes));
    {
        std::vector<std::jthread> threads;
        for (int p = 0; p < processes; ++p)
            threads.emplace_back([&, p] {
                Interpreter interpreter(module, limits, cancel, ProcessContext{p, &rendezvous});
                auto out = interpreter.run(function, arguments[static_cast<std::size_t>(p)]);
                if (!out)
                    rendezvous.abort(); // the others would wait for this process at their next collective
                outcomes[static_cast<std::size_t>(p)] = interpreter.checks();
                results[static_cast<std::size_t>(p)] = std::move(out);
            });
    }
    std::vector<std::vector<TensorValue>> out;
    for (int p = 0; p < processes; ++p) {
        auto& r = *results[static_cast<std::size_t>(p)];
        if (!r)
            return Error(r.error().location(), "process " + std::to_string(p) + ": " + r.error().message());
        out.push_back(std::move(*r));
        if (checks)
            for (auto& c : outcomes[static_cast<std::size_t>(p)]) {
                c.function += " (process " + std::to_string(p) + ")";
                checks->push_back(std::move(c));
            }
    }
    return out;
}

Result<ModuleCheck> checkModule(const Module& module, InterpreterLimits limits,
                                const std::atomic<bool>* cancel)
{
    std::vector<const Function*> toRun;
    if (const auto* entry = module.function("main"))
        toRun.push_back(entry);
    else
        for (const auto& f : module.functions)
            if (f.isPublic && f.body.argumentTypes.empty())
                toRun.push_back(&f);
    if (toRun.empty())
        return Error(module.fileName, "nothing to run: no @main and no public function without arguments");
    const auto processes =
        static_cast<std::size_t>(module.numReplicas) * static_cast<std::size_t>(module.numPartitions);
    ModuleCheck result;
    for (const auto* f : toRun) {
        if (!f->body.argumentTypes.empty())
            return Error(module.fileName, "@" + f->name +
                                              " takes arguments; check runs modules whose inputs are in "
                                              "the module (call @inputs())");
        auto out = runProcesses(module, *f, std::vector<std::vector<TensorValue>>(processes), limits, cancel,
                                &result.checks);
        if (!out)
            return out.error();
        result.functionsRun.push_back(f->name);
    }
    return result;
}

} // namespace xps::shlo
