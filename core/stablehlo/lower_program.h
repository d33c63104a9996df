#pragma once
// The lowering's program writer: one chip's xpu-v1 program, built op by op from the assembly text kernels
// write a bundle at a time (each parsed once, into the program: lower_program_code.cpp), with the bookkeeping
// every kernel needs: HBM buffers, a VMEM arena per kernel, DMA descriptors spread over the engines with a
// flag and an expected count per stream, region markers and source lines. Kernels write bundles; the writer
// keeps the program within instruction memory and the VMEM within its size, or says which op broke them.

#include <cstdint>
#include <functional>
#include <map>
#include <stop_token>
#include <string>
#include <vector>

#include "isa/isa.h"
#include "isa/machine_config.h"
#include "stablehlo/lower_pack.h"
#include "trace/trace.h"

namespace xps::shlo::lower {

// Every DMA completes in chunks of at most 1 GiB (one chunk below that), each adding 1 to its flag.
inline constexpr std::uint64_t kMaxChunk = std::uint64_t{1} << 30;
std::uint64_t chunksOf(std::uint64_t bytes);

// Thrown when the compile is cancelled: between ops, and every few thousand bundles within one.
struct Cancelled
{
};

struct LoweringError
{
    std::string message;
    bool instructionMemory = false; // the program outgrew instruction memory: written with loops, it may fit
};
[[noreturn]] void lowerFail(std::string message);
[[noreturn]] void instructionMemoryFail(std::string message);

// A stream of DMAs sharing one sync flag: each descriptor completes as one chunk, so the flag counts
// descriptors and `waitAll` waits for every one issued so far.
struct DmaStream
{
    int flag = 0;
};

// One strided dimension of a data movement, in bytes: the element at index i of this dimension is read at
// src + i * srcStride and written at dst + i * dstStride. srcStride 0 repeats (broadcast); negative walks
// backwards (reverse).
struct MoveDim
{
    std::int64_t size = 1;
    std::int64_t srcStride = 0;
    std::int64_t dstStride = 0;
};

// dma.start cvt=: f16 and bf16 tensors are held in 2 bytes in HBM and as f32 in VMEM and SMEM; a DMA
// between the two widens or narrows (to nearest even) each element on the way.
enum class Convert : std::uint8_t { None = 0, WidenF16 = 1, WidenBF16 = 2, NarrowF16 = 3, NarrowBF16 = 4 };

// What a DMA address is relative to in a loop's body: nothing, the innermost loop's offset (s30 at the
// outer level) or its second offset (s29), as [sN + address]; or a register named outright (an outer
// loop's offset, e.g. a loop over a kernel's tiles whose DMAs move through HBM while inner loops run).
enum class LoopOffset : std::uint8_t { None, First, Second };
struct DmaAddressing
{
    LoopOffset dst = LoopOffset::None;
    LoopOffset src = LoopOffset::None;
    const char* dstRegister = nullptr; // instead of dst: [register + address]
    const char* srcRegister = nullptr;
};

// A counted loop being written (ProgramWriter::beginLoop).
struct Loop
{
    std::string label;
    std::int64_t iterations = 0;
    std::int64_t step = 0;              // what the offset register grows by per iteration (bytes)
    std::int64_t step2 = 0;             // and the second offset register
    std::size_t codeAt = 0;             // the bundle the body starts at
    std::vector<std::uint64_t> flagsAt; // each flag's expected count when the body began
    std::int64_t step3 = 0;             // and the third
    int level = 0;                      // how many loops it is inside: which registers it has
    std::string startFrom;              // the register the first offset starts from (else 0)
    struct Wait
    {
        int reg = 0, flag = 0;
        std::uint64_t first = 0; // its value in the first iteration
    };
    std::vector<Wait> waits;
    std::size_t sourceLinesAt = 0; // source lines from this one on are the body's
};

class ProgramWriter
{
public:
    // `stop` is looked at every few thousand bundles: a kernel of a million bundles ends early (Cancelled).
    explicit ProgramWriter(const isa::MachineConfig& machine, bool loops = false, std::stop_token stop = {});

    const isa::MachineConfig& machine() const { return m_machine; }
    // Loop mode: kernels whose unrolled code would be long write counted loops instead (the lowering's
    // second attempt at a program that outgrew instruction memory unrolled).
    bool loops() const { return m_loops; }

    // Counted loops, up to kMaxLoopDepth one inside another. The body is written once, as iteration 0:
    // addresses that move from one iteration to the next are [offset() + address] (the offset = iteration
    // x step, or that plus the register `startFrom`, the enclosing loop's offset), DMAs name them through
    // DmaAddressing, and waitAll waits on a register that grows by what one iteration adds to its flag
    // (only in a loop no other loop encloses: a nested loop's first count would be the outer loop's first
    // iteration's). endLoop closes the body with the increments and the branch, and puts the registers'
    // first values before it; the flags' expected counts then include every iteration. Registers, by
    // depth: counter s31 and offsets s30, s29, s6; then s28, s27, s26, s5; then s9, s8, s7, s4. Waits'
    // counts: s25 down to s10.
    static constexpr int kMaxLoopDepth = 3;
    void beginLoop(std::int64_t iterations, std::int64_t step, std::int64_t step2 = 0,
                   const std::string& startFrom = {}, std::int64_t step3 = 0);
    // Whether offsets of `iterations` x `step` fit the 32-bit registers that hold them.
    static bool loopFits(std::int64_t iterations, std::int64_t step);
    void endLoop();
    bool inLoop() const { return !m_open.empty(); }
    int loopDepth() const { return static_cast<int>(m_open.size()); }
    // The innermost open loop's offset registers; with none open, those of the next loop begun.
    const char* offset() const;
    const char* offset2() const;
    const char* offset3() const;

    // `vreg` stored over `bytes` of VMEM from `address` (4 KiB aligned), a register at a time; in loop mode a
    // long fill is a loop of 16 stores an iteration.
    void fill(const std::string& vreg, std::uint64_t address, std::uint64_t bytes);

    // HBM: a buffer for a tensor (or a scratch area), 512-byte aligned; its name appears in the views.
    std::uint64_t hbmBuffer(const std::string& name, std::uint64_t bytes, const std::string& dtype,
                            const std::vector<std::int64_t>& shape);
    // VMEM: the current kernel's arena, reset by beginKernel; aligned to 4 KiB (a vector register).
    std::uint64_t vmem(std::uint64_t bytes, const char* what);
    std::uint64_t vmemAvailable() const; // what vmem() can still hand out in this kernel
    // VMEM a kernel's arena may use: the machine's, less what is kept for the whole program.
    std::uint64_t vmemCapacity() const;
    // VMEM kept for the whole program, at the top (a cross-program prefetch's copy of an argument:
    // lower_arguments.h); kernels' arenas end below it. 4 KiB aligned, declared as a VMEM buffer.
    std::uint64_t residentVmem(const std::string& name, std::uint64_t bytes, const std::string& dtype,
                               const std::vector<std::int64_t>& shape);
    void beginKernel();

    DmaStream stream(); // a flag of its own for this kernel (kernels wait for their streams before ending)
    // How many more streams this kernel may take (the machine's flags less those collectives keep).
    int streamsLeft() const;
    // A flag for one collective, from a pool no kernel stream uses: other chips' DMAs add to it, and a chip
    // that runs ahead must not make a local wait pass early. The pool turns over every 16 collectives.
    DmaStream collectiveStream();
    // Another chip's DMAs that will land on this chip's flag: what waitAll waits for grows by `chunks`.
    void expectArrivals(const DmaStream& s, std::uint64_t chunks);
    // dma.start to another chip's memory (chip=K) on engine 0, so one chip's sends land in order; counted
    // on the receiver's flag, not here.
    void dmaToChip(const DmaStream& s, int chip, std::uint64_t dst, std::uint64_t src, std::uint64_t bytes);
    // DMA descriptors (dma.start on the kernel's engines) written so far: a kernel keeps the number it
    // has in flight within the machine's queues.
    std::int64_t dmasWritten() const { return m_dmasWritten; }
    // dma.start of rows x bytes from src to dst on the next engine; the stream's flag counts it.
    void dma(DmaStream& s, isa::Space dstSpace, std::uint64_t dst, isa::Space srcSpace, std::uint64_t src,
             std::uint64_t bytes, std::uint64_t rows = 1, std::uint64_t srcStride = 0,
             std::uint64_t dstStride = 0, DmaAddressing addressing = {}, Convert convert = Convert::None);
    void waitAll(const DmaStream& s);
    // Copies a strided view with as few descriptors as the strides allow: 4-byte elements, or 2-byte ones on
    // the side a conversion packs (`convert`), or of `elementBytes` on both sides of a plain copy.
    // `base` names registers the destination or source addresses are relative to (never a LoopOffset).
    void move(DmaStream& s, isa::Space dstSpace, std::uint64_t dst, isa::Space srcSpace, std::uint64_t src,
              std::vector<MoveDim> dims, Convert convert = Convert::None, std::int64_t elementBytes = 4,
              DmaAddressing base = {});

    // One instruction (or a bundle: instructions separated by " ; "). Single instructions the packer
    // models are packed with their neighbours into VLIW bundles (lower_pack.h); the rest stand alone.
    void bundle(const std::string& text);
    // Emits what the packer holds; the code is complete only after this (regionEnd and sourceLine call it).
    void finish();
    void declareRegion(const std::string& name, const char* level);
    void regionBegin(const std::string& name);
    void regionEnd();
    void sourceLine(const std::string& file, std::uint32_t line);
    void output(const std::string& buffer);
    void name(const std::string& traceName);

    std::uint64_t bundles() const { return m_bundles; } // emitted so far
    // The chip's program as written, ended by a halt, with its symbols (buffers, regions, loop labels,
    // source lines) and outputs: what an assembled trace would hold for the chip. Call once, last.
    trace::ChipTrace takeChip();
    const std::string& traceName() const { return m_name; }
    // The HBM buffers with literal initial contents the caller adds to the assembled trace.
    struct HbmBuffer
    {
        std::string name;
        std::uint64_t address;
        std::uint64_t bytes;
    };
    const std::vector<HbmBuffer>& hbmBuffers() const { return m_hbm; }

private:
    // One bundle's text, parsed as the assembler parses it (names resolve to this chip's buffers,
    // regions and loop labels), appended to the program.
    void emit(const std::string& line);
    void append(isa::Bundle bundle);
    // One more bundle: within instruction memory, and the stop token looked at every 4,096.
    void countBundle();
    void declareBuffer(trace::Buffer buffer);
    isa::Bundle parse(const std::string& line);
    using IssueDescriptor =
        std::function<void(std::int64_t srcOffset, std::int64_t dstOffset, DmaAddressing)>;
    bool moveInLoops(const std::vector<MoveDim>& dims, const IssueDescriptor& issue);

    isa::MachineConfig m_machine;
    bool m_loops = false;
    std::stop_token m_stop;
    std::vector<Loop> m_open; // the loops being written, outermost first
    int m_nextLoop = 0;
    BundlePacker m_packer;
    std::vector<isa::Bundle> m_program; // pc = index
    trace::SymbolTable m_symbols;       // labels live in m_scope until takeChip
    std::vector<std::string> m_outputs;
    std::string m_name;
    assembly::Scope m_scope;
    std::vector<HbmBuffer> m_hbm;
    std::uint64_t m_hbmNext = 0;
    std::uint64_t m_vmemNext = 0;
    std::uint64_t m_vmemResident = 0; // bytes at the top of VMEM kept for the whole program
    std::uint64_t m_bundles = 0;
    int m_nextFlag = 1; // flag 0 is left to hand-written code; flags are reused kernel after kernel
    int m_nextCollective = 0;
    int m_nextEngine = 0;
    std::int64_t m_dmasWritten = 0;
    std::vector<std::uint64_t> m_flagCount; // chunks issued on each flag so far: what waitAll waits for
    std::map<std::string, int> m_bufferNames;
};

} // namespace xps::shlo::lower
