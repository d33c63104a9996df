#pragma once
// Names the lowering gives what it writes (internal to core/stablehlo): regions the views show, buffers.

#include <string>
#include <string_view>

#include "stablehlo/module.h"

namespace xps::shlo::lower {

// Letters, digits and '_' of `text`, anything else as '_' ("t" if nothing is left): a buffer's name.
std::string identifier(std::string_view text);

// An op's region: the op first, so a label cut short still says what runs ("dot_general %0 · attention/
// dot_general · model.py:7"); JAX's jit(f)/ prefixes are left out, and a name that only repeats the op.
std::string regionName(const Operation& op);

} // namespace xps::shlo::lower
