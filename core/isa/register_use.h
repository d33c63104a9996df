#pragma once
// Which registers an instruction reads and writes: the GRM's scoreboard and the program transformations'
// legality checks ask the same question, so it is answered once, from the opcode table.

#include "isa/program.h"

#include <cstdint>

namespace xps::isa {

struct RegisterUse
{
    std::uint32_t readsS = 0; // bit r: reads scalar register r (including address bases)
    std::uint32_t readsV = 0;
    int writesS = -1;
    int writesV = -1;
};

RegisterUse registerUse(const Instruction& insn);

} // namespace xps::isa
