// The assembler (.xasm): lexer, parser, directives, machine lines, symbol resolution.
#include "asm/assembler.h"
#include "asm/disassembler.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto trace = xps::assembly::assemble(text, "fuzz.xasm"); trace.ok())
        for (const auto& chip : trace->chips)
            for (const auto& bundle : chip.program.bundles)
                xps::fuzz::requireValidUtf8(xps::assembly::disassembleBundle(bundle, chip.symbols));
    return 0;
}
