#include "stablehlo/lower_program.h"

#include <algorithm>

namespace xps::shlo::lower {

void lowerFail(std::string message)
{
    throw LoweringError{std::move(message)};
}

void instructionMemoryFail(std::string message)
{
    throw LoweringError{std::move(message), true};
}

namespace {
std::uint64_t alignUp(std::uint64_t v, std::uint64_t a)
{
    return (v + a - 1) / a * a;
}
constexpr std::uint64_t kMaxDescriptorsPerMove = 1 << 16;
// Loop registers: the iteration counter, the offsets and the waits' counts (and s2 for a later wait on the
// same flag); the kernels use s1.
// Per nesting level: the counter and the three offsets.
constexpr const char* kCounter[ProgramWriter::kMaxLoopDepth] = {"s31", "s28", "s9"};
constexpr const char* kOffset[ProgramWriter::kMaxLoopDepth] = {"s30", "s27", "s8"};
constexpr const char* kOffset2[ProgramWriter::kMaxLoopDepth] = {"s29", "s26", "s7"};
constexpr const char* kOffset3[ProgramWriter::kMaxLoopDepth] = {"s6", "s5", "s4"};
constexpr int kFirstWaitRegister = 25;
constexpr int kLastWaitRegister = 10;
constexpr const char* kWaitScratch = "s2"; // a later wait's count on a flag the loop body already waits on
// A data movement of this many descriptors or more is looped in loop mode.
constexpr std::uint64_t kLoopDescriptorsAtLeast = 32;

// Calls fn(source offset, destination offset) for every index of `dims`, row-major.
template <typename Fn> void forEachOffset(const std::vector<MoveDim>& dims, Fn&& fn)
{
    std::uint64_t count = 1;
    for (const auto& d : dims)
        count *= static_cast<std::uint64_t>(d.size);
    std::vector<std::int64_t> index(dims.size(), 0);
    for (std::uint64_t n = 0; n < count; ++n) {
        std::int64_t srcOffset = 0, dstOffset = 0;
        for (std::size_t i = 0; i < dims.size(); ++i) {
            srcOffset += index[i] * dims[i].srcStride;
            dstOffset += index[i] * dims[i].dstStride;
        }
        fn(srcOffset, dstOffset);
        for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
            const auto u = static_cast<std::size_t>(i);
            if (++index[u] < dims[u].size)
                break;
            index[u] = 0;
        }
    }
}
} // namespace

ProgramWriter::ProgramWriter(const isa::MachineConfig& machine, bool loops, std::stop_token stop)
    : m_machine(machine), m_loops(loops), m_stop(std::move(stop)), m_packer(machine),
      m_flagCount(static_cast<std::size_t>(std::max<std::int64_t>(machine.syncFlags, 2)))
{
    m_scope.declareRegions = false; // declareRegion names every region before its region.begin
}

std::uint64_t ProgramWriter::hbmBuffer(const std::string& bufferName, std::uint64_t bytes,
                                       const std::string& dtype, const std::vector<std::int64_t>& shape)
{
    const std::uint64_t size = alignUp(std::max<std::uint64_t>(bytes, 4), 512);
    const std::uint64_t address = m_hbmNext;
    if (address + size > static_cast<std::uint64_t>(m_machine.hbmBytes))
        lowerFail("the module's tensors need more than the machine's " + std::to_string(m_machine.hbmBytes) +
                  " bytes of HBM");
    m_hbmNext = address + size;
    // Kernels name their scratch buffers by what they hold; a second one of a name gets a number.
    std::string unique = bufferName;
    if (const int n = m_bufferNames[bufferName]++; n > 0)
        unique += "_" + std::to_string(n);
    declareBuffer({unique, isa::Space::Hbm, address, size, dtype, shape, {}});
    m_hbm.push_back({unique, address, size});
    return address;
}

void ProgramWriter::beginKernel()
{
    m_vmemNext = 0;
    m_nextFlag = 1;
}

std::uint64_t ProgramWriter::vmem(std::uint64_t bytes, const char* what)
{
    const std::uint64_t address = m_vmemNext;
    const std::uint64_t size = alignUp(std::max<std::uint64_t>(bytes, 4096), 4096);
    if (address + size > vmemCapacity())
        lowerFail(std::string(what) + " needs " + std::to_string(address + size) +
                  " bytes of VMEM; the machine has " + std::to_string(m_machine.vmemBytes) +
                  (m_vmemResident > 0
                       ? ", " + std::to_string(m_vmemResident) + " of them kept for the whole program"
                       : std::string()) +
                  " (this lowering keeps one op's working set in VMEM)");
    m_vmemNext = address + size;
    return address;
}

std::uint64_t ProgramWriter::vmemAvailable() const
{
    const auto total = vmemCapacity();
    return total > m_vmemNext ? total - m_vmemNext : 0;
}

std::uint64_t ProgramWriter::vmemCapacity() const
{
    const auto total = static_cast<std::uint64_t>(std::max<std::int64_t>(m_machine.vmemBytes, 0));
    return total > m_vmemResident ? total - m_vmemResident : 0;
}

std::uint64_t ProgramWriter::residentVmem(const std::string& bufferName, std::uint64_t bytes,
                                          const std::string& dtype, const std::vector<std::int64_t>& shape)
{
    const std::uint64_t size = alignUp(std::max<std::uint64_t>(bytes, 4096), 4096);
    if (size > vmemCapacity())
        lowerFail(bufferName + " needs " + std::to_string(size) + " bytes of VMEM for the whole program; " +
                  std::to_string(vmemCapacity()) + " are left");
    m_vmemResident += size;
    const std::uint64_t address = static_cast<std::uint64_t>(m_machine.vmemBytes) - m_vmemResident;
    declareBuffer({bufferName, isa::Space::Vmem, address, size, dtype, shape, {}});
    return address;
}

namespace {
constexpr int kCollectiveFlags = 16;
}

std::uint64_t chunksOf(std::uint64_t bytes)
{
    return bytes / kMaxChunk + (bytes % kMaxChunk != 0 ? 1 : 0);
}

DmaStream ProgramWriter::stream()
{
    if (m_nextFlag >= static_cast<int>(m_flagCount.size()) - kCollectiveFlags)
        lowerFail("a kernel needs more DMA streams than the machine has sync flags (" +
                  std::to_string(m_flagCount.size()) + ", of which " + std::to_string(kCollectiveFlags) +
                  " are kept for collectives)");
    return DmaStream{m_nextFlag++};
}

int ProgramWriter::streamsLeft() const
{
    return std::max(static_cast<int>(m_flagCount.size()) - kCollectiveFlags - m_nextFlag, 0);
}

DmaStream ProgramWriter::collectiveStream()
{
    const int base = static_cast<int>(m_flagCount.size()) - kCollectiveFlags;
    if (base < 2)
        lowerFail("collectives need at least " + std::to_string(kCollectiveFlags + 2) + " sync flags");
    return DmaStream{base + (m_nextCollective++ % kCollectiveFlags)};
}

void ProgramWriter::expectArrivals(const DmaStream& s, std::uint64_t chunks)
{
    m_flagCount[static_cast<std::size_t>(s.flag)] += chunks;
}

void ProgramWriter::dmaToChip(const DmaStream& s, int chip, std::uint64_t dst, std::uint64_t src,
                              std::uint64_t bytes)
{
    if (bytes == 0)
        return;
    bundle("dma.start hbm[" + std::to_string(dst) + "], hbm[" + std::to_string(src) + "], " +
           std::to_string(bytes) + ", " + std::to_string(s.flag) + ", engine=0, chunk=" +
           std::to_string(std::min<std::uint64_t>(bytes, kMaxChunk)) + ", chip=" + std::to_string(chip));
}

void ProgramWriter::dma(DmaStream& s, isa::Space dstSpace, std::uint64_t dst, isa::Space srcSpace,
                        std::uint64_t src, std::uint64_t bytes, std::uint64_t rows, std::uint64_t srcStride,
                        std::uint64_t dstStride, DmaAddressing addressing, Convert convert)
{
    // A converting DMA's chunks count its 2-byte side: a narrowing one's is half what it reads.
    const bool narrows = convert == Convert::NarrowF16 || convert == Convert::NarrowBF16;
    const std::uint64_t total = bytes * rows / (narrows ? 2 : 1);
    if (total == 0) // an empty tensor: nothing to move (the DMA engine refuses an empty descriptor)
        return;
    const std::uint64_t chunk = std::min<std::uint64_t>(total, kMaxChunk);
    m_flagCount[static_cast<std::size_t>(s.flag)] += chunksOf(total);
    if ((addressing.dst != LoopOffset::None || addressing.src != LoopOffset::None) && m_open.empty())
        lowerFail("a DMA addressed through a loop's offset outside a loop (a lowering bug)");
    if ((addressing.dstRegister && addressing.dst != LoopOffset::None) ||
        (addressing.srcRegister && addressing.src != LoopOffset::None))
        lowerFail("a DMA address relative to two registers (a lowering bug)");
    const auto address = [this](std::uint64_t a, LoopOffset by, const char* reg) {
        if (reg)
            return std::string(reg) + " + " + std::to_string(a);
        if (by == LoopOffset::None)
            return std::to_string(a);
        return std::string(by == LoopOffset::First ? offset() : offset2()) + " + " + std::to_string(a);
    };
    std::string text = "dma.start " + std::string(isa::spaceName(dstSpace)) + "[" +
                       address(dst, addressing.dst, addressing.dstRegister) + "], " +
                       std::string(isa::spaceName(srcSpace)) + "[" +
                       address(src, addressing.src, addressing.srcRegister) + "], " + std::to_string(bytes) +
                       ", " + std::to_string(s.flag) + ", engine=" + std::to_string(m_nextEngine);
    if (rows > 1)
        text += ", rows=" + std::to_string(rows) + ", sstride=" + std::to_string(srcStride) +
                ", dstride=" + std::to_string(dstStride);
    text += ", chunk=" + std::to_string(chunk);
    if (convert != Convert::None)
        text += ", cvt=" + std::to_string(static_cast<int>(convert));
    m_nextEngine = (m_nextEngine + 1) % static_cast<int>(std::max<std::int64_t>(m_machine.dmaEngines, 1));
    ++m_dmasWritten;
    bundle(text);
}

void ProgramWriter::waitAll(const DmaStream& s)
{
    const auto count = m_flagCount[static_cast<std::size_t>(s.flag)];
    if (m_open.empty()) {
        if (count == 0)
            return; // nothing issued on it (a pipelined kernel's first use of a set's write-back stream)
        bundle("sync.wait " + std::to_string(s.flag) + ", " + std::to_string(count));
        return;
    }
    // In a loop the count grows from one iteration to the next: a register holds it (s25 down to s10).
    if (m_open.size() > 1)
        lowerFail("a wait inside a nested loop (a lowering bug: its first count would be wrong after the "
                  "outer loop's first iteration)");
    // A later wait on a flag the body already waits on needs no register of its own: it expects a fixed
    // number more than the first wait (both grow by the flag's increments per iteration), so the count is
    // made from the first one's register in kWaitScratch (a body of eight tiles of a matmul, two waits each
    // on four flags, fits the 16 registers so).
    for (const Loop::Wait& earlier : m_open.back().waits)
        if (earlier.flag == s.flag) {
            const std::uint64_t more = count - earlier.first;
            if (more == 0) {
                bundle("sync.wait " + std::to_string(s.flag) + ", s" + std::to_string(earlier.reg));
                return;
            }
            if (more > INT32_MAX)
                lowerFail("a loop body whose waits on one flag are more than 2^31 apart (a lowering bug)");
            bundle(std::string("sadd ") + kWaitScratch + ", s" + std::to_string(earlier.reg) + ", " +
                   std::to_string(more));
            bundle("sync.wait " + std::to_string(s.flag) + ", " + kWaitScratch);
            return;
        }
    std::size_t used = 0;
    for (const Loop& loop : m_open)
        used += loop.waits.size();
    const int reg = kFirstWaitRegister - static_cast<int>(used);
    if (reg < kLastWaitRegister)
        lowerFail("a loop body with more than " + std::to_string(kFirstWaitRegister - kLastWaitRegister + 1) +
                  " waits (a lowering bug)");
    m_open.back().waits.push_back({reg, s.flag, count});
    bundle("sync.wait " + std::to_string(s.flag) + ", s" + std::to_string(reg));
}

void ProgramWriter::fill(const std::string& vreg, std::uint64_t address, std::uint64_t bytes)
{
    constexpr std::uint64_t kStores = 16, kRegister = 4096;
    const std::uint64_t stores = (bytes + kRegister - 1) / kRegister;
    std::uint64_t done = 0;
    if (m_loops && m_open.empty() && stores >= 4 * kStores) {
        const auto iterations = static_cast<std::int64_t>(stores / kStores);
        beginLoop(iterations, static_cast<std::int64_t>(kStores * kRegister));
        for (std::uint64_t k = 0; k < kStores; ++k)
            bundle("vst " + vreg + ", [" + offset() + " + " + std::to_string(address + k * kRegister) + "]");
        endLoop();
        done = static_cast<std::uint64_t>(iterations) * kStores;
    }
    for (std::uint64_t k = done; k < stores; ++k)
        bundle("vst " + vreg + ", [" + std::to_string(address + k * kRegister) + "]");
}

bool ProgramWriter::loopFits(std::int64_t iterations, std::int64_t step)
{
    return iterations >= 1 && step >= 0 && step <= INT32_MAX &&
           static_cast<double>(iterations) * static_cast<double>(step) < 4294967296.0;
}

const char* ProgramWriter::offset() const
{
    return kOffset[m_open.empty() ? 0 : m_open.size() - 1];
}

const char* ProgramWriter::offset2() const
{
    return kOffset2[m_open.empty() ? 0 : m_open.size() - 1];
}

const char* ProgramWriter::offset3() const
{
    return kOffset3[m_open.empty() ? 0 : m_open.size() - 1];
}

void ProgramWriter::beginLoop(std::int64_t iterations, std::int64_t step, std::int64_t step2,
                              const std::string& startFrom, std::int64_t step3)
{
    if (m_open.size() >= static_cast<std::size_t>(kMaxLoopDepth))
        lowerFail("loops " + std::to_string(kMaxLoopDepth + 1) + " deep (a lowering bug)");
    if (!startFrom.empty() && (m_open.empty() || startFrom != kOffset[m_open.size() - 1]))
        lowerFail("a loop starting from a register other than its outer loop's offset (a lowering bug)");
    if (!startFrom.empty() &&
        static_cast<double>(m_open.back().iterations) * static_cast<double>(m_open.back().step) +
                static_cast<double>(iterations) * static_cast<double>(step) >=
            4294967296.0)
        lowerFail("nested loops whose offsets together do not fit a 32-bit register");
    if (!loopFits(iterations, step) || !loopFits(iterations, step2) || !loopFits(iterations, step3))
        lowerFail("a loop of " + std::to_string(iterations) + " iterations of " + std::to_string(step) +
                  " bytes: its offsets do not fit a 32-bit register");
    finish(); // the body starts a bundle of its own: the branch target
    Loop loop;
    loop.label = "loop_" + std::to_string(m_nextLoop++);
    loop.iterations = iterations;
    loop.step = step;
    loop.step2 = step2;
    loop.step3 = step3;
    loop.codeAt = m_program.size();
    loop.sourceLinesAt = m_symbols.sourceLines.size();
    loop.flagsAt = m_flagCount;
    loop.level = static_cast<int>(m_open.size());
    loop.startFrom = startFrom;
    m_open.push_back(std::move(loop));
}

void ProgramWriter::endLoop()
{
    if (m_open.empty())
        lowerFail("endLoop without a loop (a lowering bug)");
    const Loop loop = std::move(m_open.back());
    m_open.pop_back();
    const auto level = static_cast<std::size_t>(loop.level);
    const std::string counter = kCounter[level], first = kOffset[level], second = kOffset2[level],
                      third = kOffset3[level];
    // What one iteration adds to each flag.
    std::vector<std::uint64_t> perIteration(m_flagCount.size());
    for (std::size_t f = 0; f < m_flagCount.size(); ++f)
        perIteration[f] = m_flagCount[f] - loop.flagsAt[f];
    if (loop.step != 0)
        bundle("sadd " + first + ", " + first + ", " + std::to_string(loop.step));
    if (loop.step2 != 0)
        bundle("sadd " + second + ", " + second + ", " + std::to_string(loop.step2));
    if (loop.step3 != 0)
        bundle("sadd " + third + ", " + third + ", " + std::to_string(loop.step3));
    for (const auto& wait : loop.waits)
        if (const auto grow = perIteration[static_cast<std::size_t>(wait.flag)]; grow != 0)
            bundle("sadd s" + std::to_string(wait.reg) + ", s" + std::to_string(wait.reg) + ", " +
                   std::to_string(grow));
    bundle("ssub " + counter + ", " + counter + ", 1");
    finish();
    for (std::size_t f = 0; f < m_flagCount.size(); ++f)
        m_flagCount[f] += perIteration[f] * static_cast<std::uint64_t>(loop.iterations - 1);
    // The registers' first values, two to a bundle, then the label, before the body.
    std::vector<std::string> starts = {
        "smov " + counter + ", " + std::to_string(loop.iterations),
        loop.startFrom.empty() ? "smov " + first + ", 0" : "sadd " + first + ", " + loop.startFrom + ", 0"};
    if (loop.step2 != 0)
        starts.push_back("smov " + second + ", 0");
    if (loop.step3 != 0)
        starts.push_back("smov " + third + ", 0");
    for (const auto& wait : loop.waits) {
        if (wait.first > UINT32_MAX)
            lowerFail("a loop's wait counts pass 2^32 (a lowering bug)");
        starts.push_back("smov s" + std::to_string(wait.reg) + ", " + std::to_string(wait.first));
    }
    std::vector<isa::Bundle> preamble;
    for (std::size_t i = 0; i < starts.size(); i += 2) {
        countBundle();
        preamble.push_back(parse(starts[i] + (i + 1 < starts.size() ? " ; " + starts[i + 1] : "")));
    }
    // The body moves down by the preamble: its loops' labels and branch targets, and its source lines.
    const auto shift = static_cast<std::int64_t>(preamble.size());
    const auto bodyStart = static_cast<std::int64_t>(loop.codeAt);
    for (std::size_t pc = loop.codeAt; pc < m_program.size(); ++pc)
        for (isa::Instruction& insn : m_program[pc].instructions)
            if (insn.info().isBranch)
                for (isa::Operand& target : insn.operands)
                    if (target.form == isa::Operand::Form::Imm && target.value >= bodyStart)
                        target.value += shift;
    for (auto& [name, pc] : m_scope.labels)
        if (pc >= loop.codeAt)
            pc += static_cast<std::uint32_t>(shift);
    for (std::size_t i = loop.sourceLinesAt; i < m_symbols.sourceLines.size(); ++i)
        m_symbols.sourceLines[i].pc += static_cast<std::uint32_t>(shift);
    m_program.insert(m_program.begin() + static_cast<std::ptrdiff_t>(loop.codeAt),
                     std::make_move_iterator(preamble.begin()), std::make_move_iterator(preamble.end()));
    m_scope.labels[loop.label] = static_cast<std::uint32_t>(loop.codeAt + preamble.size());
    bundle("brnz " + counter + ", " + loop.label);
    finish();
}

void ProgramWriter::move(DmaStream& s, isa::Space dstSpace, std::uint64_t dst, isa::Space srcSpace,
                         std::uint64_t src, std::vector<MoveDim> dims, Convert convert,
                         std::int64_t elementBytes, DmaAddressing base)
{
    if (base.dst != LoopOffset::None || base.src != LoopOffset::None)
        lowerFail(
            "a data movement relative to a loop offset by position (a lowering bug: name the register)");
    std::erase_if(dims, [](const MoveDim& d) { return d.size == 1; });
    if (std::any_of(dims.begin(), dims.end(), [](const MoveDim& d) { return d.size == 0; }))
        return; // nothing to move
    const bool widens = convert == Convert::WidenF16 || convert == Convert::WidenBF16;
    const bool narrows = convert == Convert::NarrowF16 || convert == Convert::NarrowBF16;
    // The contiguous run: the innermost dimensions that are dense in both source and destination.
    std::int64_t run = widens ? 2 : narrows ? 4 : elementBytes;
    std::int64_t dstRun = widens ? 4 : narrows ? 2 : elementBytes;
    while (!dims.empty() && dims.back().srcStride == run && dims.back().dstStride == dstRun) {
        run *= dims.back().size;
        dstRun *= dims.back().size;
        dims.pop_back();
    }
    // The rows of one descriptor: the largest dimension that moves forward in both.
    std::size_t rowsDim = dims.size();
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i].srcStride > 0 && dims[i].dstStride > 0 &&
            (rowsDim == dims.size() || dims[i].size > dims[rowsDim].size))
            rowsDim = i;
    MoveDim rows{1, 0, 0};
    if (rowsDim < dims.size()) {
        rows = dims[rowsDim];
        dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(rowsDim));
    }
    std::uint64_t descriptors = 1;
    for (const auto& d : dims)
        descriptors *= static_cast<std::uint64_t>(d.size);
    if (descriptors > kMaxDescriptorsPerMove)
        lowerFail("a data movement of " + std::to_string(descriptors) + " DMA descriptors (more than " +
                  std::to_string(kMaxDescriptorsPerMove) + "): its layout is too fine-grained for DMA alone");
    const auto issue = [&](std::int64_t srcOffset, std::int64_t dstOffset, DmaAddressing addressing) {
        dma(s, dstSpace, static_cast<std::uint64_t>(static_cast<std::int64_t>(dst) + dstOffset), srcSpace,
            static_cast<std::uint64_t>(static_cast<std::int64_t>(src) + srcOffset),
            static_cast<std::uint64_t>(run), static_cast<std::uint64_t>(rows.size),
            static_cast<std::uint64_t>(rows.srcStride), static_cast<std::uint64_t>(rows.dstStride),
            addressing, convert);
    };
    // Loops address through their own offsets: a movement relative to a named register stays unrolled.
    if (m_loops && m_open.empty() && !base.dstRegister && !base.srcRegister &&
        descriptors >= kLoopDescriptorsAtLeast && moveInLoops(dims, issue))
        return;
    forEachOffset(dims,
                  [&](std::int64_t srcOffset, std::int64_t dstOffset) { issue(srcOffset, dstOffset, base); });
}

// In loop mode, a movement's descriptors as loops over its largest dimension whose strides are not negative
// (a DMA for each engine an iteration, the destination through the first offset and the source through the
// second), one loop for each index of its other dimensions, what does not fill an iteration unrolled after.
// False when no dimension suits; the caller unrolls.
bool ProgramWriter::moveInLoops(const std::vector<MoveDim>& dims, const IssueDescriptor& issue)
{
    const auto engines = std::max<std::int64_t>(m_machine.dmaEngines, 1);
    std::size_t best = dims.size();
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i].srcStride >= 0 && dims[i].dstStride >= 0 &&
            (best == dims.size() || dims[i].size > dims[best].size))
            best = i;
    if (best == dims.size())
        return false;
    const MoveDim along = dims[best];
    const std::int64_t iterations = along.size / engines;
    const std::int64_t dstStep = engines * along.dstStride, srcStep = engines * along.srcStride;
    if (iterations < 4 || !loopFits(iterations, dstStep) || !loopFits(iterations, srcStep))
        return false;
    const DmaAddressing addressing{dstStep != 0 ? LoopOffset::First : LoopOffset::None,
                                   srcStep != 0 ? LoopOffset::Second : LoopOffset::None};
    std::vector<MoveDim> others = dims;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(best));
    forEachOffset(others, [&](std::int64_t srcBase, std::int64_t dstBase) {
        beginLoop(iterations, dstStep, srcStep);
        for (std::int64_t u = 0; u < engines; ++u)
            issue(srcBase + u * along.srcStride, dstBase + u * along.dstStride, addressing);
        endLoop();
        for (std::int64_t i = iterations * engines; i < along.size; ++i)
            issue(srcBase + i * along.srcStride, dstBase + i * along.dstStride, {});
    });
    return true;
}

} // namespace xps::shlo::lower
