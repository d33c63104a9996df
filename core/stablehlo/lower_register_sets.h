#pragma once
// Register sets of element-wise kernels (internal to core/stablehlo; lower_elementwise_kernel.cpp): the code
// of one register of a kernel's result renamed so that another register's code can interleave with it.

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace xps::shlo::lower {

// Another register set's code with its own scratch registers (v3, v4, v5, v30, v31, and v6, the first
// set's result, which atan2 borrows: what the op sequences of lower_elementwise.cpp use within one step),
// so that no two sets write one register and their code may interleave; false where registers run out.
bool renameScratch(std::vector<std::string>& code, const std::function<std::optional<int>()>& take);

} // namespace xps::shlo::lower
