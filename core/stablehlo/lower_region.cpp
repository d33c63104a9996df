// A reducer region lowered to vector code: each value of the body gets a vector register (one reduction
// per lane), each op the instruction sequence of its element-wise kernel. This is how reductions with a
// reducer other than a single add / maximum / minimum, and with several inputs (argmax: a value and its
// index), run on the vector unit.

#include <algorithm>
#include <bit>

#include "stablehlo/lower_kernels.h"
#include "stablehlo/tensor_value.h"

namespace xps::shlo::lower {

std::vector<int> regionCode(ProgramWriter& w, const Body& region, const std::vector<int>& arguments,
                            int lastRegister)
{
    if (arguments.size() != region.argumentTypes.size())
        lowerFail("the reducer takes " + std::to_string(region.argumentTypes.size()) + " arguments");
    std::vector<int> reg(region.valueTypes.size(), -1);
    std::copy(arguments.begin(), arguments.end(), reg.begin());
    // A register is free again after its value's last use (arguments' registers belong to the caller).
    std::vector<std::size_t> lastUse(region.valueTypes.size(), 0);
    for (std::size_t k = 0; k < region.operations.size(); ++k)
        for (const auto v : region.operations[k].operands)
            lastUse[v] = k;
    std::vector<int> free;
    int first = 16;
    for (int r : arguments)
        first = std::max(first, r + 1);
    for (int r = lastRegister; r >= first; --r)
        free.push_back(r);
    std::size_t index = 0;
    for (const auto& op : region.operations) {
        if (op.kind == OpKind::Return) {
            std::vector<int> out;
            // One result per input: the arguments are the accumulators and the elements, half each.
            if (op.operands.size() != arguments.size() / 2)
                lowerFail("the reducer returns " + std::to_string(op.operands.size()) + " values; " +
                          std::to_string(arguments.size() / 2) + " expected");
            for (const auto v : op.operands)
                out.push_back(reg.at(v));
            return out;
        }
        if (op.resultTypes.size() != 1)
            lowerFail("a reducer op with several results has no lowering yet");
        if (free.empty())
            lowerFail("the reducer needs more vector registers than there are");
        const int result = free.back();
        free.pop_back();
        reg[op.firstResult] = result;
        const auto k = index++;
        // Operands used for the last time here give their registers back (after this op has read them).
        const auto release = [&] {
            for (const auto v : op.operands)
                if (v >= arguments.size() && lastUse[v] == k && reg[v] >= first &&
                    std::find(free.begin(), free.end(), reg[v]) == free.end())
                    free.push_back(reg[v]);
        };
        const auto& type = op.resultTypes[0];
        if (!type.shape.empty())
            lowerFail("a reducer works on scalars");
        if (op.kind == OpKind::Constant) {
            const auto* value = op.attributes.find("value");
            auto literal = literalValue(*value, type, "a reducer constant");
            if (!literal)
                lowerFail(literal.error().message());
            const double x = literal->data.at(0);
            const std::uint32_t bits = wordOf(type.element, x);
            w.bundle("vbcast v" + std::to_string(result) + ", " + std::to_string(bits));
            release();
            continue;
        }
        if (elementwiseArity(op.kind) == 0)
            lowerFail(std::string(opName(op.kind)) + " in a reducer has no lowering yet");
        // The element-wise kernels read one register per operand their op takes.
        if (op.operands.size() != static_cast<std::size_t>(elementwiseArity(op.kind)))
            lowerFail(std::string(opName(op.kind)) + " in a reducer: expected " +
                      std::to_string(elementwiseArity(op.kind)) + " operands, has " +
                      std::to_string(op.operands.size()));
        std::vector<int> operands;
        for (const auto v : op.operands)
            operands.push_back(reg[v]);
        const auto in = region.valueTypes[op.operands.at(0)].element;
        const auto code = elementwiseCode(op, in, type.element, operands);
        if (code.empty())
            lowerFail(std::string(opName(op.kind)) + " on " + std::string(elementTypeName(in)) +
                      " in a reducer has no lowering yet");
        for (const auto& instruction : code)
            w.bundle(instruction);
        w.bundle("vmov v" + std::to_string(result) + ", v6");
        release();
    }
    lowerFail("the reducer has no return");
}

void setUpRegionConstants(ProgramWriter& w, const Body& region)
{
    const bool rounds = std::any_of(region.operations.begin(), region.operations.end(),
                                    [](const Operation& op) { return isRounding(op.kind); });
    setUpElementwiseConstants(w, rounds ? OpKind::Floor : OpKind::Add);
}

} // namespace xps::shlo::lower
