#include "trace/trace_json.h"
#include "util/json_text.h"

#include "asm/disassembler.h"
#include "asm/parser.h"
#include "trace/trace_validate.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace xps::trace {

using ojson = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------- payloads

void Base64PayloadWriter::write(ojson& object, std::span<const std::uint8_t> bytes)
{
    object["base64"] = text::base64Encode(bytes);
}

void Base64PayloadReader::read(const JsonCursor& object, std::uint64_t size, std::vector<std::uint8_t>& out)
{
    const auto data = object.find("base64");
    if (!data)
        object.fail("expected \"base64\" data or a \"generator\"");
    const std::string& encoded = data->str(SIZE_MAX);
    // Check the length before decoding: a hostile file cannot make us allocate more than it declares.
    const std::uint64_t expectedLength = (size + 2) / 3 * 4;
    if (encoded.size() != expectedLength)
        data->fail("base64 text of " + std::to_string(encoded.size()) +
                   " characters cannot hold the declared " + std::to_string(size) + " bytes (expected " +
                   std::to_string(expectedLength) + " characters)");
    if (!text::base64Decode(encoded, out) || out.size() != size)
        data->fail("invalid base64 data");
}

namespace {

// ---------------------------------------------------------------------------------------------- writing

ojson generatorToJson(const Generator& g)
{
    ojson j;
    j["kind"] = std::string(generatorKindName(g.kind));
    switch (g.kind) {
    case Generator::Kind::ConstF32: j["value"] = g.a; break;
    case Generator::Kind::ConstU32: j["value"] = g.bits; break;
    case Generator::Kind::RandomF32:
    case Generator::Kind::RandomF16:
    case Generator::Kind::RandomBF16:
        j["seed"] = g.seed;
        j["lo"] = g.a;
        j["hi"] = g.b;
        break;
    case Generator::Kind::RandomS32:
        j["seed"] = g.seed;
        j["lo"] = static_cast<std::int64_t>(g.a);
        j["hi"] = static_cast<std::int64_t>(g.b);
        break;
    case Generator::Kind::RandomU32: j["seed"] = g.seed; break;
    default: break;
    }
    return j;
}

void payloadToJson(ojson& object, const Payload& p, PayloadWriter& payloads)
{
    if (p.isGenerator)
        object["generator"] = generatorToJson(p.generator);
    else
        payloads.write(object, p.bytes);
}

// ---------------------------------------------------------------------------------------------- reading

isa::Space spaceFrom(const JsonCursor& c)
{
    const std::string& name = c.str(16);
    const auto space = isa::spaceFromName(name);
    if (!space)
        c.fail("unknown memory space '" + name + "': expected \"hbm\", \"vmem\" or \"smem\"");
    return *space;
}

std::string nameFrom(const JsonCursor& c, std::string_view what)
{
    const std::string& s = c.str(256);
    if (s.empty())
        c.fail(std::string(what) + " must not be empty");
    if (!assembly::isPlainIdentifier(s))
        c.fail(std::string(what) + " '" + s +
               "' must be an identifier (letters, digits, '_' and '.', not starting with a digit)");
    return s;
}

Generator generatorFrom(const JsonCursor& c)
{
    c.expectObject({"kind", "value", "seed", "lo", "hi"});
    const JsonCursor kindCursor = c.at("kind");
    const std::string& kindName = kindCursor.str(32);
    const auto kind = generatorKindFromName(kindName);
    if (!kind)
        kindCursor.fail(
            "unknown generator '" + kindName +
            "': expected zero, const_u32, const_f32, random_f32, random_f16, random_bf16, random_u32 or "
            "iota_s32");
    Generator g;
    g.kind = *kind;
    switch (g.kind) {
    case Generator::Kind::ConstF32: g.a = c.at("value").real(); break;
    case Generator::Kind::ConstU32: g.bits = static_cast<std::uint32_t>(c.at("value").u64(UINT32_MAX)); break;
    case Generator::Kind::RandomF32:
    case Generator::Kind::RandomF16:
    case Generator::Kind::RandomBF16:
        g.seed = c.at("seed").u64();
        g.a = c.at("lo").real();
        g.b = c.at("hi").real();
        if (!(g.a < g.b))
            c.fail(kindName + " needs lo < hi");
        break;
    case Generator::Kind::RandomU32: g.seed = c.at("seed").u64(); break;
    case Generator::Kind::RandomS32:
        g.seed = c.at("seed").u64();
        g.a = c.at("lo").real();
        g.b = c.at("hi").real();
        if (!(g.a <= g.b) || g.a < INT32_MIN || g.b > INT32_MAX || g.a != std::trunc(g.a) ||
            g.b != std::trunc(g.b))
            c.fail(kindName + " needs integers lo <= hi within 32 bits");
        break;
    default: break;
    }
    return g;
}

Payload payloadFrom(const JsonCursor& c, std::uint64_t size, PayloadReader& payloads)
{
    Payload p;
    if (const auto g = c.find("generator")) {
        if (c.find("base64") || c.find("blob"))
            c.fail("give either a \"generator\" or data, not both");
        p.isGenerator = true;
        p.generator = generatorFrom(*g);
    } else {
        payloads.read(c, size, p.bytes);
    }
    return p;
}

int registerIndex(const JsonCursor& c, const std::string& key, char prefix, int count)
{
    const bool shape = key.size() >= 2 && key.size() <= 3 && key[0] == prefix &&
                       key.find_first_not_of("0123456789", 1) == std::string::npos &&
                       !(key.size() == 3 && key[1] == '0');
    const int r = shape ? std::stoi(key.substr(1)) : -1;
    if (r < 0 || r >= count)
        JsonCursor(c.json()[key], c.path() + "." + key)
            .fail("'" + key + "' is not a register name: expected " + prefix + "0.." + prefix +
                  std::to_string(count - 1));
    return r;
}

InitialState initialFrom(const JsonCursor& c, const isa::MachineConfig& machine, PayloadReader& payloads)
{
    c.expectObject({"sregs", "vregs", "flags", "memory"});
    InitialState s;
    if (const auto sregs = c.find("sregs"))
        for (const auto& [key, v] : sregs->members(isa::kScalarRegisters, "scalar registers"))
            s.scalarRegisters[registerIndex(*sregs, key, 's', isa::kScalarRegisters)] =
                static_cast<std::uint32_t>(v.i64(INT32_MIN, UINT32_MAX));
    if (const auto flags = c.find("flags")) {
        for (const auto& [key, v] : flags->members(static_cast<std::size_t>(machine.syncFlags), "flags")) {
            const bool digits =
                !key.empty() && key.size() <= 6 && key.find_first_not_of("0123456789") == std::string::npos;
            const long flag = digits ? std::stol(key) : -1;
            if (flag < 0 || flag >= machine.syncFlags)
                v.fail("'" + key + "' is not a flag: expected a number from 0 to " +
                       std::to_string(machine.syncFlags - 1) +
                       " (sync_flags=" + std::to_string(machine.syncFlags) + ")");
            s.flags[static_cast<int>(flag)] = static_cast<std::uint32_t>(v.u64(UINT32_MAX));
        }
    }
    if (const auto vregs = c.find("vregs")) {
        for (const auto& [key, v] : vregs->members(isa::kVectorRegisters, "vector registers")) {
            const int r = registerIndex(*vregs, key, 'v', isa::kVectorRegisters);
            v.expectObject({"generator", "base64", "blob"});
            s.vectorRegisters[r] = payloadFrom(v, isa::kVectorBytes, payloads);
        }
    }
    if (const auto memory = c.find("memory")) {
        const std::size_t n = memory->arraySize(1u << 20, "memory regions");
        for (std::size_t i = 0; i < n; ++i) {
            const JsonCursor m = (*memory)[i];
            m.expectObject({"space", "address", "size", "generator", "base64", "blob"});
            MemoryInit init;
            init.space = spaceFrom(m.at("space"));
            const std::uint64_t limit = spaceSize(machine, init.space);
            init.address = m.at("address").u64(limit);
            // Sizes are checked against the machine before any byte is read or allocated.
            init.size = m.at("size").u64(limit - init.address);
            if (init.size == 0)
                m.at("size").fail("a memory region must hold at least 1 byte");
            init.payload = payloadFrom(m, init.size, payloads);
            s.memory.push_back(std::move(init));
        }
    }
    return s;
}

// Bounds and overlaps are checked afterwards by validateTrace, so that every finding is reported.
std::vector<Buffer> buffersFrom(const JsonCursor& c)
{
    std::vector<Buffer> out;
    const std::size_t n = c.arraySize(1u << 20, "buffers");
    for (std::size_t i = 0; i < n; ++i) {
        const JsonCursor b = c[i];
        b.expectObject({"name", "space", "address", "size", "dtype", "shape", "alias"});
        Buffer buffer;
        buffer.name = nameFrom(b.at("name"), "buffer name");
        buffer.space = spaceFrom(b.at("space"));
        buffer.address = b.at("address").u64();
        buffer.size = b.at("size").u64();
        if (const auto d = b.find("dtype"))
            buffer.dtype = d->str(32);
        if (const auto shape = b.find("shape")) {
            const std::size_t rank = shape->arraySize(8, "dimensions");
            for (std::size_t k = 0; k < rank; ++k)
                buffer.shape.push_back(static_cast<std::int64_t>((*shape)[k].u64(INT64_MAX)));
        }
        if (const auto a = b.find("alias"))
            buffer.aliasOf = nameFrom(*a, "alias");
        out.push_back(std::move(buffer));
    }
    return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------- chips

ojson chipToJson(const ChipTrace& chip, PayloadWriter& payloads)
{
    ojson j;
    j["chip"] = chip.chip.value;
    ojson program = ojson::array();
    for (const isa::Bundle& b : chip.program.bundles)
        program.push_back(assembly::disassembleBundle(b, chip.symbols));
    j["program"] = std::move(program);
    ojson labels = ojson::object();
    for (const Label& l : chip.symbols.labels)
        labels[l.name] = l.pc;
    j["labels"] = std::move(labels);
    ojson buffers = ojson::array();
    for (const Buffer& b : chip.symbols.buffers) {
        ojson o;
        o["name"] = b.name;
        o["space"] = std::string(isa::spaceName(b.space));
        o["address"] = b.address;
        o["size"] = b.size;
        if (!b.dtype.empty())
            o["dtype"] = b.dtype;
        if (!b.shape.empty())
            o["shape"] = b.shape;
        if (!b.aliasOf.empty())
            o["alias"] = b.aliasOf;
        buffers.push_back(std::move(o));
    }
    j["buffers"] = std::move(buffers);
    ojson regions = ojson::array();
    for (const RegionSymbol& r : chip.symbols.regions) {
        ojson o;
        o["name"] = r.name;
        if (!r.level.empty())
            o["level"] = r.level;
        regions.push_back(std::move(o));
    }
    j["regions"] = std::move(regions);
    ojson lines = ojson::array();
    for (const SourceLine& l : chip.symbols.sourceLines)
        lines.push_back(ojson{{"pc", l.pc}, {"file", l.file}, {"line", l.line}});
    j["source_lines"] = std::move(lines);

    ojson initial = ojson::object();
    ojson sregs = ojson::object();
    for (const auto& [r, v] : chip.initial.scalarRegisters)
        sregs["s" + std::to_string(r)] = v;
    initial["sregs"] = std::move(sregs);
    ojson flags = ojson::object();
    for (const auto& [f, v] : chip.initial.flags)
        flags[std::to_string(f)] = v;
    initial["flags"] = std::move(flags);
    ojson vregs = ojson::object();
    for (const auto& [r, p] : chip.initial.vectorRegisters) {
        ojson o = ojson::object();
        payloadToJson(o, p, payloads);
        vregs["v" + std::to_string(r)] = std::move(o);
    }
    initial["vregs"] = std::move(vregs);
    ojson memory = ojson::array();
    for (const MemoryInit& m : chip.initial.memory) {
        ojson o;
        o["space"] = std::string(isa::spaceName(m.space));
        o["address"] = m.address;
        o["size"] = m.size;
        payloadToJson(o, m.payload, payloads);
        memory.push_back(std::move(o));
    }
    initial["memory"] = std::move(memory);
    j["initial"] = std::move(initial);
    j["outputs"] = chip.outputs;
    return j;
}

ChipTrace chipFromJson(const JsonCursor& c, const isa::MachineConfig& machine, PayloadReader& payloads)
{
    c.expectObject({"chip", "program", "labels", "buffers", "regions", "source_lines", "initial", "outputs"});
    ChipTrace chip;
    chip.chip = chipIdAt(static_cast<std::size_t>(c.at("chip").i64(0, machine.chips - 1)));
    if (const auto b = c.find("buffers"))
        chip.symbols.buffers = buffersFrom(*b);
    if (const auto regions = c.find("regions")) {
        const std::size_t n = regions->arraySize(1u << 16, "regions");
        for (std::size_t i = 0; i < n; ++i) {
            const JsonCursor r = (*regions)[i];
            r.expectObject({"name", "level"});
            RegionSymbol region;
            region.name = r.at("name").str(256);
            if (region.name.empty() || region.name.find_first_of("\"\n\r") != std::string::npos)
                r.at("name").fail("a region name must be non-empty and contain no quote or line break");
            if (const auto level = r.find("level"))
                region.level = level->str(32);
            chip.symbols.regions.push_back(std::move(region));
        }
    }
    if (const auto labels = c.find("labels")) {
        for (const auto& [name, pc] : labels->members(1u << 20, "labels")) {
            if (!assembly::isPlainIdentifier(name))
                pc.fail("label name '" + name + "' must be an identifier");
            chip.symbols.labels.push_back(
                {name, static_cast<std::uint32_t>(pc.u64(static_cast<std::uint64_t>(machine.imemBundles)))});
        }
        std::stable_sort(chip.symbols.labels.begin(), chip.symbols.labels.end(),
                         [](const Label& a, const Label& b) { return a.pc < b.pc; });
    }
    if (const auto lines = c.find("source_lines")) {
        const std::size_t n = lines->arraySize(static_cast<std::size_t>(machine.imemBundles), "source lines");
        for (std::size_t i = 0; i < n; ++i) {
            const JsonCursor l = (*lines)[i];
            l.expectObject({"pc", "file", "line"});
            chip.symbols.sourceLines.push_back(
                {static_cast<std::uint32_t>(l.at("pc").u64(static_cast<std::uint64_t>(machine.imemBundles))),
                 l.at("file").str(4096), static_cast<std::uint32_t>(l.at("line").u64(UINT32_MAX))});
        }
    }

    // The program: one bundle of assembly per line, resolved against this chip's symbols.
    const JsonCursor program = c.at("program");
    const std::size_t n =
        program.arraySize(static_cast<std::size_t>(machine.imemBundles), "bundles (imem_bundles)");
    assembly::Scope scope;
    scope.buffers = chip.symbols.buffers;
    for (const Label& l : chip.symbols.labels)
        scope.labels[l.name] = l.pc;
    scope.regions = &chip.symbols.regions;
    scope.declareRegions = false;
    chip.program.bundles.reserve(n);
    for (std::size_t pc = 0; pc < n; ++pc) {
        const JsonCursor line = program[pc];
        const std::string& text = line.str(1u << 16);
        std::string column;
        auto bundle = assembly::parseBundleLine(text, scope, [&](std::size_t col) {
            column = std::to_string(col);
            return std::string();
        });
        if (!bundle)
            line.fail("column " + column + ": " + bundle.error().message());
        chip.program.bundles.push_back(std::move(bundle).value());
    }

    if (const auto initial = c.find("initial"))
        chip.initial = initialFrom(*initial, machine, payloads);
    if (const auto outputs = c.find("outputs")) {
        const std::size_t k = outputs->arraySize(1u << 16, "outputs");
        for (std::size_t i = 0; i < k; ++i)
            chip.outputs.push_back(nameFrom((*outputs)[i], "output"));
    }
    return chip;
}

// ---------------------------------------------------------------------------------------------- recorded
// timing

ojson generatedByToJson(const GeneratedBy& g)
{
    ojson params = ojson::object();
    for (const auto& [key, value] : g.params)
        params[key] = value;
    return ojson{{"workload", g.workload}, {"variant", g.variant}, {"params", std::move(params)}};
}

GeneratedBy generatedByFromJson(const JsonCursor& c)
{
    c.expectObject({"workload", "variant", "params"});
    GeneratedBy g;
    g.workload = c.at("workload").str(64);
    g.variant = c.at("variant").str(64);
    if (const auto params = c.find("params"))
        for (const auto& [key, value] : params->members(64, "generator parameters"))
            g.params[key] = value.i64(INT64_MIN, INT64_MAX);
    return g;
}

ojson recordedToJson(const RecordedTiming& r)
{
    ojson regions = ojson::array();
    for (const RecordedRegion& x : r.regions)
        regions.push_back(ojson{
            {"chip", x.chip.value}, {"region", x.region}, {"instance", x.instance}, {"cycles", x.cycles}});
    ojson samples = ojson::array();
    for (const RecordedSample& s : r.samples)
        samples.push_back(ojson::array({s.chip.value, s.pc, s.cycle}));
    return ojson{{"regions", std::move(regions)}, {"samples", std::move(samples)}};
}

RecordedTiming recordedFromJson(const JsonCursor& c)
{
    c.expectObject({"regions", "samples"});
    RecordedTiming r;
    if (const auto regions = c.find("regions")) {
        const std::size_t n = regions->arraySize(1u << 24, "recorded regions");
        for (std::size_t i = 0; i < n; ++i) {
            const JsonCursor x = (*regions)[i];
            x.expectObject({"chip", "region", "instance", "cycles"});
            r.regions.push_back({chipIdAt(static_cast<std::size_t>(x.at("chip").i64(0, 4095))),
                                 x.at("region").str(256), x.find("instance") ? x.at("instance").u64() : 0,
                                 x.at("cycles").u64()});
        }
    }
    if (const auto samples = c.find("samples")) {
        const std::size_t n = samples->arraySize(1u << 26, "samples");
        for (std::size_t i = 0; i < n; ++i) {
            const JsonCursor s = (*samples)[i];
            if (s.arraySize(3, "fields") != 3)
                s.fail("expected [chip, pc, cycle]");
            r.samples.push_back({chipIdAt(static_cast<std::size_t>(s[0].i64(0, 4095))),
                                 static_cast<std::uint32_t>(s[1].u64(UINT32_MAX)), s[2].u64()});
        }
    }
    return r;
}

// ---------------------------------------------------------------------------------------------- documents

void checkFormatVersion(const JsonCursor& root)
{
    if (!root.json().is_object())
        root.fail("expected a trace object, found " + std::string(jsonTypeName(root.json())));
    const JsonCursor format = root.at("format");
    if (format.json() != kFormatName)
        format.fail("not an xpushark trace: expected \"format\": \"" + std::string(kFormatName) + "\"");
    const std::uint64_t version = root.at("version").u64();
    if (version > static_cast<std::uint64_t>(kFormatVersion))
        root.at("version").fail("written by a newer xpushark (trace format version " +
                                std::to_string(version) + "; this build reads versions up to " +
                                std::to_string(kFormatVersion) + "): please update xpushark");
    if (version < 1)
        root.at("version").fail("trace format version must be at least 1");
}

std::string jsonPathOf(const Where& w)
{
    const std::string chip = "$.chips[" + std::to_string(w.chip.value) + "]";
    const std::string i = "[" + std::to_string(w.index) + "]";
    switch (w.part) {
    case Part::Trace: return "$";
    case Part::Chip: return chip;
    case Part::Bundle: return chip + ".program" + i;
    case Part::Buffer: return chip + ".buffers" + i;
    case Part::Region: return chip + ".regions" + i;
    case Part::Label: return chip + ".labels";
    case Part::SourceLine: return chip + ".source_lines" + i;
    case Part::ScalarInit: return chip + ".initial.sregs.s" + std::to_string(w.index);
    case Part::VectorInit: return chip + ".initial.vregs.v" + std::to_string(w.index);
    case Part::FlagInit: return chip + ".initial.flags." + std::to_string(w.index);
    case Part::MemoryInit: return chip + ".initial.memory" + i;
    case Part::Output: return chip + ".outputs" + i;
    case Part::RecordedRegion: return "$.recorded.regions" + i;
    case Part::RecordedSample: return "$.recorded.samples" + i;
    }
    return "$";
}

std::string writeTraceJson(const Trace& trace)
{
    ojson root;
    root["format"] = std::string(kFormatName);
    root["version"] = kFormatVersion;
    root["name"] = trace.name;
    if (trace.generatedBy)
        root["generator"] = generatedByToJson(*trace.generatedBy);
    ojson machine = ojson::object();
    const nlohmann::json all = isa::machineConfigToJson(trace.machine);
    for (const auto& p : isa::configParams())
        machine[std::string(p.key)] = all[std::string(p.key)];
    root["machine"] = std::move(machine);
    Base64PayloadWriter payloads;
    ojson chips = ojson::array();
    for (const ChipTrace& c : trace.chips)
        chips.push_back(chipToJson(c, payloads));
    root["chips"] = std::move(chips);
    if (trace.recorded)
        root["recorded"] = recordedToJson(*trace.recorded);
    return text::jsonText(root, 1) + "\n";
}

Result<Trace> readTraceJson(std::string_view text, std::string_view fileName)
{
    if (text.size() > kMaxJsonTraceBytes)
        return Error(std::string(fileName), "JSON trace of " + text::formatBytes(text.size()) +
                                                " is larger than the " +
                                                text::formatBytes(kMaxJsonTraceBytes) +
                                                " a JSON trace may be; convert it to the .xps container");
    std::string syntaxError;
    const nlohmann::json doc = parseJsonText(text, fileName, syntaxError);
    if (!syntaxError.empty()) {
        const std::size_t split = syntaxError.find(": ", fileName.size());
        return Error(syntaxError.substr(0, split), syntaxError.substr(split + 2));
    }
    const std::string at = std::string(fileName) + ": ";
    Trace trace;
    try {
        const JsonCursor root(doc, "$");
        checkFormatVersion(root);
        root.expectObject({"format", "version", "name", "generator", "machine", "chips", "recorded"});
        if (const auto name = root.find("name"))
            trace.name = name->str(1024);
        if (const auto generator = root.find("generator"))
            trace.generatedBy = generatedByFromJson(*generator);
        if (const auto machine = root.find("machine")) {
            auto config = isa::machineConfigFromJson(machine->json(), {}, "$.machine");
            if (!config) {
                const std::string& m = config.error().message();
                const std::size_t split = m.find(": ");
                return Error(at + m.substr(0, split), m.substr(split + 2));
            }
            trace.machine = std::move(config).value();
        }
        const JsonCursor chips = root.at("chips");
        const std::size_t n =
            chips.arraySize(static_cast<std::size_t>(trace.machine.chips), "chips (machine.chips)");
        Base64PayloadReader payloads;
        for (std::size_t i = 0; i < n; ++i)
            trace.chips.push_back(chipFromJson(chips[i], trace.machine, payloads));
        if (const auto recorded = root.find("recorded"))
            trace.recorded = recordedFromJson(*recorded);
    } catch (const JsonError& e) {
        return Error(at + e.path, e.message);
    }
    std::vector<Diagnostic> findings =
        validateTrace(trace, [&](const Where& w) { return at + jsonPathOf(w); });
    if (!findings.empty())
        return Error(std::move(findings));
    return trace;
}

} // namespace xps::trace
