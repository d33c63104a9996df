#include "replayer.h"

#include "asm/disassembler.h"
#include "blas.h"
#include "core_model.h"
#include "trace/trace_validate.h"
#include "util/physical_memory.h"
#include "util/text.h"

#include <chrono>

namespace xps::sim {

std::uint64_t defaultMaxEventBytes()
{
    static const std::uint64_t bytes = physicalMemoryBytes() / 2;
    return bytes;
}

std::string ReplayFault::toString() const
{
    return "chip " + std::to_string(chip.value) + ", pc " + text::hex(pc) + ", cycle " +
           std::to_string(cycle) + " (`" + instruction + "`): " + message;
}

struct Replayer::Impl
{
    const trace::Trace& trace;
    ReplayOptions options;
    events::EventStore& store;
    std::vector<ChipState> states;
    std::vector<ChipStats> stats;
    std::unique_ptr<DmaSystem> dma;
    std::vector<std::unique_ptr<CoreModel>> cores;
    std::uint64_t now = 0;
    std::uint64_t bundles = 0;
    bool ended = false;
    bool finished = false; // finish() has given the result away
    ReplayResult result;

    Impl(const trace::Trace& t, const ReplayOptions& o, events::EventStore& s)
        : trace(t), options(o), store(s)
    {
        blas::useOneThread();
        if (refuseInvalid())
            return;
        const isa::MachineConfig& m = trace.machine;
        states.resize(trace.chips.size());
        stats.resize(trace.chips.size());
        for (std::size_t c = 0; c < trace.chips.size(); ++c) {
            ChipState& st = states[c];
            const trace::ChipTrace& ct = trace.chips[c];
            st.chip = chipIdAt(c);
            st.hbm = SparseMemory(static_cast<std::uint64_t>(m.hbmBytes));
            st.vmem = SparseMemory(static_cast<std::uint64_t>(m.vmemBytes));
            st.smem = SparseMemory(static_cast<std::uint64_t>(m.smemBytes));
            st.flags.assign(static_cast<std::size_t>(m.syncFlags), 0);
            for (const auto& [reg, value] : ct.initial.scalarRegisters) {
                st.s[static_cast<std::size_t>(reg)] = value;
                st.sValid[static_cast<std::size_t>(reg)] = true;
            }
            for (const auto& [flag, value] : ct.initial.flags)
                st.flags[static_cast<std::size_t>(flag)] = value;
            for (const auto& [reg, payload] : ct.initial.vectorRegisters) {
                std::span<std::uint8_t> bytes(
                    reinterpret_cast<std::uint8_t*>(st.v[static_cast<std::size_t>(reg)].data()),
                    isa::kVectorBytes);
                if (payload.isGenerator)
                    generateBytes(payload.generator, 0, bytes);
                else
                    std::copy(payload.bytes.begin(), payload.bytes.end(), bytes.begin());
                st.vValid[static_cast<std::size_t>(reg)] = true;
            }
            for (const trace::MemoryInit& init : ct.initial.memory)
                st.memory(init.space).addSource(init.address, init.size, init.payload);
        }
        store.configure(static_cast<int>(trace.chips.size()), static_cast<std::uint64_t>(m.vmemBytes));
        const bool full = options.mode == ReplayMode::Full;
        dma = std::make_unique<DmaSystem>(m, states, store, full);
        const ExecOptions exec{full, static_cast<std::uint64_t>(m.vmemAlignment)};
        for (std::size_t c = 0; c < trace.chips.size(); ++c)
            cores.push_back(std::make_unique<CoreModel>(trace.chips[c], states[c], m, *dma, store, exec,
                                                        stats[c], options.perPcStats));
    }

    // Every reader validates what it reads, but a trace built in code (a test, a tool on the library) comes
    // here directly, and the machine state and a bundle's pending writes are sized by what validateTrace
    // guarantees: register and flag numbers, addresses, slots. An invalid trace is a fault before the first
    // cycle, never memory corrupted. The check costs a pass over the program and the buffers.
    bool refuseInvalid()
    {
        std::optional<trace::Where> first;
        const std::vector<Diagnostic> findings = trace::validateTrace(trace, [&](const trace::Where& w) {
            if (!first)
                first = w;
            return trace::jsonPathOf(w);
        });
        if (findings.empty())
            return false;
        ReplayFault f;
        f.message = "the trace is not valid for its machine: " + findings.front().toString();
        if (findings.size() > 1)
            f.message += " (and " + std::to_string(findings.size() - 1) + " more)";
        if (first && first->chip.valid() && first->chip.value < trace.chips.size()) {
            f.chip = first->chip;
            const isa::Program& program = trace.chips[first->chip.value].program;
            if (first->part == trace::Part::Bundle && first->index < program.bundles.size()) {
                f.pc = static_cast<std::uint32_t>(first->index);
                f.instruction = assembly::disassembleBundle(program.bundles[first->index],
                                                            trace.chips[first->chip.value].symbols);
            }
        }
        result.status = ReplayResult::Status::Faulted;
        result.fault = std::move(f);
        ended = true; // nothing is built: run(), step() and finish() see a replay that ended at cycle 0
        return true;
    }

    void fail(ChipId chip, const std::string& message, bool deadlock = false)
    {
        const CoreModel& core = *cores[chip.value];
        ReplayFault f;
        f.chip = chip;
        f.pc = core.pc();
        f.cycle = now;
        f.message = message;
        f.deadlock = deadlock;
        if (core.pc() < core.chip().program.bundles.size())
            f.instruction =
                assembly::disassembleBundle(core.chip().program.bundles[core.pc()], core.chip().symbols);
        result.status = ReplayResult::Status::Faulted;
        result.fault = f;
        ended = true;
    }

    // One global cycle (or a skip over an idle stretch). Returns false once the replay has ended.
    bool advance()
    {
        if (ended)
            return false;
        try {
            dma->advanceTo(now);
        } catch (const SimFault& f) {
            fail(firstRunningChip(), f.message);
            return false;
        }
        bool issued = false;
        bool running = false; // a chip has not halted: the replay ends when none has and no DMA is in flight
        std::uint64_t wake = kNever;
        // The count and the array read once: tryIssue writes memory the compiler cannot tell apart from
        // the vector's, so it reloaded both every chip of every step.
        const std::size_t chipCount = cores.size();
        const std::unique_ptr<CoreModel>* const chipCores = cores.data();
        for (std::size_t c = 0; c < chipCount; ++c) {
            CoreModel& core = *chipCores[c];
            if (core.halted())
                continue;
            if (core.nextIssue() > now) {
                wake = std::min(wake, core.nextIssue());
                running = true;
                continue;
            }
            try {
                const Attempt a = core.tryIssue(now);
                if (a.issued) {
                    issued = true;
                    ++bundles;
                    running = running || !core.halted(); // it may have issued its halt
                } else {
                    wake = std::min(wake, a.wake);
                    running = true;
                }
            } catch (const SimFault& f) {
                fail(chipIdAt(c), f.message);
                return false;
            }
        }
        if (!running && dma->idle()) {
            ended = true;
            return false;
        }
        if (issued) {
            ++now;
            return true;
        }
        const std::uint64_t next = std::min(wake, dma->nextEventCycle());
        if (next == kNever) {
            reportDeadlock();
            return false;
        }
        now = std::max(next, now + 1);
        return true;
    }

    ChipId firstRunningChip() const
    {
        for (std::size_t c = 0; c < cores.size(); ++c)
            if (!cores[c]->halted())
                return chipIdAt(c);
        return ChipId(0);
    }

    // Stops the replay if it reached a limit; true then. The test is inline (it runs every step); the
    // message is built only when a limit is reached.
    bool stopAtLimit()
    {
        if (!((options.maxCycles && now >= options.maxCycles) ||
              (options.maxBundles && bundles >= options.maxBundles))) [[likely]]
            return false;
        reportLimit();
        return true;
    }

    // Checked every few thousand steps (the store's count is a load through a pointer, the check a branch,
    // but the step loop is the replay's hottest code).
    bool stopAtMemoryLimit()
    {
        if (!options.maxEventBytes || store.allocatedBytes() <= options.maxEventBytes) [[likely]]
            return false;
        reportLimit(true);
        return true;
    }

    [[gnu::noinline]] void reportLimit(bool memory = false)
    {
        const bool cycles = options.maxCycles && now >= options.maxCycles;
        result.status = ReplayResult::Status::LimitReached;
        result.limit = memory   ? ReplayResult::Limit::Memory
                       : cycles ? ReplayResult::Limit::Cycles
                                : ReplayResult::Limit::Bundles;
        ended = true; // step() and run() alike: nothing advances past a limit
        const bool halfOfMemory = options.maxEventBytes == defaultMaxEventBytes();
        std::string m =
            memory ? "the memory limit (" + text::formatBytes(options.maxEventBytes) + " of events" +
                         (halfOfMemory ? ", half of this machine's memory" : "") + ")"
            : cycles ? "the cycle limit (" + text::withThousands(options.maxCycles) + " cycles)"
                     : "the bundle limit (" + text::withThousands(options.maxBundles) + " bundles)";
        for (std::size_t c = 0; c < cores.size(); ++c) {
            if (cores[c]->halted())
                continue;
            const CoreModel& core = *cores[c];
            std::uint32_t hottest = 0;
            for (std::uint32_t pc = 1; pc < core.programSize(); ++pc)
                if (core.executions(pc) > core.executions(hottest))
                    hottest = pc;
            m += "; chip " + std::to_string(c) + " still running at pc " + text::hex(core.pc());
            if (hottest < core.programSize() && core.executions(hottest) > 0)
                m += ", its most executed bundle pc " + text::hex(static_cast<std::uint64_t>(hottest)) +
                     " (`" +
                     assembly::disassembleBundle(core.chip().program.bundles[hottest], core.chip().symbols) +
                     "`, " + text::withThousands(core.executions(hottest)) + " times)";
        }
        result.limitMessage = std::move(m);
    }

    void reportDeadlock()
    {
        std::string message = "deadlock: every running chip waits on something nothing in flight can change";
        ChipId first;
        for (std::size_t c = 0; c < cores.size(); ++c) {
            if (cores[c]->halted())
                continue;
            if (!first.valid())
                first = chipIdAt(c);
            message += "; chip " + std::to_string(c) + " at pc " + text::hex(cores[c]->pc()) + " " +
                       cores[c]->waitDescription();
        }
        fail(first.valid() ? first : ChipId(0), message, true);
    }

    ReplayResult finish()
    {
        // The statistics, states and result move out below: a second call has nothing left to give, and
        // the cores' statistics would now be the first result's.
        if (finished)
            return {};
        finished = true;
        store.flush();
        for (auto& core : cores)
            core->finishStats();
        result.totalCycles = 0;
        for (ChipStats& s : stats)
            result.totalCycles = std::max(result.totalCycles, s.halted ? s.haltCycle : now);
        result.totalCycles = std::max(result.totalCycles, now);
        // Moved, not copied: a model's per-pc counts are hundreds of megabytes.
        result.chips = std::move(stats);
        if (dma) // not built for a trace refused before the first cycle
            for (std::size_t c = 0; c < states.size(); ++c)
                result.dma.push_back(dma->totals(chipIdAt(c)));
        result.finalState = std::move(states);
        states.clear();
        ended = true;
        return std::move(result);
    }
};

Replayer::Replayer(const trace::Trace& trace, const ReplayOptions& options, events::EventStore& store)
    : m_impl(std::make_unique<Impl>(trace, options, store))
{
}

Replayer::~Replayer() = default;

ReplayResult Replayer::run(std::stop_token stop, const ProgressCallback& progress)
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    auto lastReport = start;
    Impl& s = *m_impl;
    std::uint64_t iterations = 0;
    while (s.advance()) {
        if (s.stopAtLimit())
            break;
        // Look at the clock and the stop token only every 4096 steps: cheap, and still well under 50 ms.
        if ((++iterations & 4095) != 0)
            continue;
        if (s.stopAtMemoryLimit())
            break;
        if (stop.stop_requested()) {
            s.result.status = ReplayResult::Status::Cancelled;
            break;
        }
        const auto now = Clock::now();
        if (progress && now - lastReport >= std::chrono::milliseconds(50)) {
            lastReport = now;
            progress({s.bundles, s.now, std::chrono::duration<double>(now - start).count()});
        }
    }
    if (progress)
        progress({s.bundles, s.now, std::chrono::duration<double>(Clock::now() - start).count()});
    return s.finish();
}

bool Replayer::step(std::uint64_t cycles)
{
    const std::uint64_t until = m_impl->now + cycles;
    while (m_impl->now < until)
        if (!m_impl->advance() || m_impl->stopAtLimit())
            return false;
    return true;
}

std::uint64_t Replayer::cycle() const
{
    return m_impl->now;
}

const ChipState& Replayer::state(ChipId chip) const
{
    return m_impl->states[chip.value];
}

ReplayResult Replayer::finish()
{
    return m_impl->finish();
}

ReplayResult replay(const trace::Trace& trace, const ReplayOptions& options, events::EventStore& store)
{
    return Replayer(trace, options, store).run();
}

} // namespace xps::sim
