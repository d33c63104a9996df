#include "import/chrome_json.h"

#include "import/chrome_json_importer.h"
#include "import/critical_path_semantics.h"
#include "import/profile_semantics.h"
#include "util/text.h"

#include <algorithm>
#include <filesystem>

namespace xps::importing {

namespace detail {

std::int64_t Importer::numberOf(const std::string& idText, std::int64_t fallback)
{
    std::int64_t v = 0;
    return parseScaled(idText, 1, v) ? v : fallback;
}

void Importer::run()
{
    try {
        switch (r.peek()) {
        case JsonKind::Array:
            m_sawEventList = true;
            readEvents("$");
            break;
        case JsonKind::Object: readTopLevelObject(); break;
        case JsonKind::End: throw JsonSyntaxError{r.offset(), "the file is empty: expected a JSON trace"};
        default:
            throw JsonSyntaxError{r.offset(), "expected a trace: a JSON array of events or an object with "
                                              "\"traceEvents\""};
        }
        if (!m_sawEventList)
            throw JsonSyntaxError{r.offset(),
                                  "no \"traceEvents\" array: this JSON object is not a Chrome trace"};
        if (!r.atEnd())
            warn("data after the end of the trace was ignored", "$");
    } catch (const JsonSyntaxError& e) {
        // A file cut off after some events (a crashed or still-running profiler): keep what was read.
        if (!(r.reachedEnd() && m_events > 0))
            throw;
        b.addRepair(profile::RepairKind::Truncated, 0,
                    "the file ends early (" + e.message + " at byte " + text::withThousands(e.offset) +
                        "): kept the " + text::withThousands(m_events) +
                        " events before it; the last, incomplete one was dropped");
    }
    finish();
}

void Importer::readTopLevelObject()
{
    r.expect('{');
    bool first = true;
    std::string key;
    while (r.nextMember(key, first)) {
        if (key == "traceEvents") {
            if (r.peek() != JsonKind::Array)
                throw JsonSyntaxError{r.offset(), "$.traceEvents: expected an array of events"};
            m_sawEventList = true;
            readEvents("$.traceEvents");
        } else if (key == kCriticalPathKey) {
            std::string value;
            r.skipValue(&value);
            m_criticalPath = nlohmann::json::parse(value, nullptr, false);
        } else if (key == kSemanticsKey) {
            std::string value;
            r.skipValue(&value);
            m_semantics = nlohmann::json::parse(value, nullptr, false);
            adoptDeclaredTimebase();
        } else {
            if (key == "schemaVersion" || key == "deviceProperties" || key == "distributedInfo")
                m_kineto = true;
            std::string value;
            r.skipValue(&value);
            if (value.size() > 4096)
                value = value.substr(0, 4096) + "...";
            p.metadata.emplace_back(key, std::move(value));
        }
    }
}

void Importer::adoptDeclaredTimebase()
{
    std::string wrong;
    const std::optional<profile::Timebase> declared = declaredTimebase(m_semantics, wrong);
    if (!wrong.empty()) {
        warn("a malformed timebase was ignored: times were read as nanoseconds", wrong,
             profile::RepairKind::Assumed);
        return;
    }
    if (!declared)
        return;
    // Events already read were counted in nanoseconds; the file is not as we write it.
    if (m_events > 0) {
        warn("a timebase declared after the events was ignored: times were read as nanoseconds",
             "$." + std::string(kSemanticsKey) + ".timebase", profile::RepairKind::Assumed);
        return;
    }
    m_picos = !declared->isNanoseconds();
    m_timebase = *declared;
    p.timebase = *declared;
}

void Importer::readEvents(const std::string& arrayPath)
{
    r.expect('[');
    bool first = true;
    while (r.nextElement(first)) {
        if (r.peek() != JsonKind::Object) {
            warn("array elements that are not event objects were skipped",
                 arrayPath + "[" + std::to_string(m_events) + "]");
            r.skipValue();
            ++m_events;
            continue;
        }
        readEvent();
        place(m_event, m_events, arrayPath);
        ++m_events;
        // Every 16 MiB of text: the decompressed offset costs nothing, the file's offset is a system call.
        if (m_options.progress && r.offset() >= m_nextProgress) {
            m_nextProgress = r.offset() + (16u << 20);
            if (!m_options.progress(r.fileOffset()))
                throw JsonSyntaxError{r.offset(), "cancelled"};
        }
    }
}

namespace {

// The event's members by name, told apart by length first: a chain of string comparisons per member was a
// fifth of the import's time (each one a call to memcmp).
enum class EventField : std::uint8_t {
    Other,
    Ph,
    Name,
    Cat,
    Ts,
    Dur,
    Pid,
    Tid,
    Id,
    Bp,
    Scope,
    Args,
    BindId,
    FlowIn,
    FlowOut
};

EventField eventFieldOf(std::string_view k)
{
    switch (k.size()) {
    case 1: return k[0] == 's' ? EventField::Scope : EventField::Other;
    case 2:
        return k == "ph"   ? EventField::Ph
               : k == "ts" ? EventField::Ts
               : k == "id" ? EventField::Id
               : k == "bp" ? EventField::Bp
                           : EventField::Other;
    case 3:
        return k == "cat"   ? EventField::Cat
               : k == "dur" ? EventField::Dur
               : k == "pid" ? EventField::Pid
               : k == "tid" ? EventField::Tid
               : k == "id2" ? EventField::Id
                            : EventField::Other;
    case 4: return k == "name" ? EventField::Name : k == "args" ? EventField::Args : EventField::Other;
    case 7:
        return k == "bind_id" ? EventField::BindId : k == "flow_in" ? EventField::FlowIn : EventField::Other;
    case 8: return k == "flow_out" ? EventField::FlowOut : EventField::Other;
    default: return EventField::Other;
    }
}

// The arguments Kineto writes that the importer reads itself.
enum class ArgKey : std::uint8_t { Other, Correlation, ExternalId, KinetoIndex, PerEvent };

ArgKey argKeyOf(std::string_view k)
{
    switch (k.size()) {
    case 6: return k == "Ev Idx" ? ArgKey::KinetoIndex : ArgKey::Other;
    case 9: return k == "Python id" ? ArgKey::PerEvent : ArgKey::Other;
    case 11:
        return k == "correlation"   ? ArgKey::Correlation
               : k == "External id" ? ArgKey::ExternalId
                                    : ArgKey::Other;
    case 15: return k == "Sequence number" ? ArgKey::PerEvent : ArgKey::Other;
    case 16: return k == "Python parent id" ? ArgKey::PerEvent : ArgKey::Other;
    case 18: return k == "Record function id" ? ArgKey::KinetoIndex : ArgKey::Other;
    default: return ArgKey::Other;
    }
}

} // namespace

void Importer::readEvent()
{
    RawEvent& e = m_event;
    e.clear();
    r.expect('{');
    bool first = true;
    const auto text = [&](std::string& out, const char* field) {
        switch (r.peek()) {
        case JsonKind::String: r.readString(out); return;
        case JsonKind::Number: out = r.readNumberText(); return;
        default:
            if (e.badField.empty())
                e.badField = std::string(field) + ": expected a string or a number";
            r.skipValue();
        }
    };
    const auto micros = [&](Nanos& out, bool& has, const char* field) {
        if (r.peek() == JsonKind::Number || r.peek() == JsonKind::String) {
            if (r.peek() == JsonKind::String)
                r.readString(m_text); // some writers quote their timestamps
            else
                m_text = r.readNumberText();
            if (!m_picos && parseScaled(m_text, 1000, out)) {
                has = true;
                return;
            }
            if (std::int64_t ps = 0; m_picos && parseScaled(m_text, 1'000'000, ps)) {
                out = m_timebase.fromPicos(ps);
                has = true;
                return;
            }
        } else {
            r.skipValue();
        }
        if (e.badField.empty())
            e.badField = std::string(field) + ": expected a number of microseconds";
    };
    while (r.nextMember(m_key, first)) {
        switch (eventFieldOf(m_key)) {
        case EventField::Ph:
            text(m_text, "ph");
            e.ph = m_text.size() == 1 ? m_text[0] : '?';
            break;
        case EventField::Name: text(e.name, "name"); break;
        case EventField::Cat: text(e.cat, "cat"); break;
        case EventField::Ts: micros(e.ts, e.hasTs, "ts"); break;
        case EventField::Dur: micros(e.dur, e.hasDur, "dur"); break;
        case EventField::Pid: text(e.pid, "pid"); break;
        case EventField::Tid: text(e.tid, "tid"); break;
        case EventField::Id:
            if (r.peek() == JsonKind::Object) {
                // id2: {"local": "0x1"} or {"global": "0x1"}
                m_text.clear();
                r.skipValue(&m_text);
                e.id = m_text;
            } else {
                text(e.id, "id");
            }
            break;
        case EventField::Bp: text(e.bp, "bp"); break;
        case EventField::Scope:
            text(m_text, "s");
            e.scope = m_text.empty() ? 't' : m_text[0];
            break;
        case EventField::Args: readArgs(e); break;
        case EventField::BindId: text(e.bindId, "bind_id"); break;
        case EventField::FlowIn:
        case EventField::FlowOut: {
            const bool v = r.peek() == JsonKind::True || r.peek() == JsonKind::False ? r.readBool()
                                                                                     : (r.skipValue(), false);
            (m_key == "flow_in" ? e.flowIn : e.flowOut) = v;
            break;
        }
        case EventField::Other: r.skipValue(); break; // tts, tdur, sf, stack, ...
        }
    }
}

void Importer::readArgs(RawEvent& e)
{
    if (r.peek() != JsonKind::Object) {
        r.skipValue();
        return;
    }
    r.expect('{');
    e.args = "{";
    bool first = true;
    std::string key;
    while (r.nextMember(key, first)) {
        // Kineto's per-event counters become the slice's link (see profile.h) instead of an argument set of
        // their own per event; "Ev Idx" and "Record function id" are Kineto's internal indexes.
        const ArgKey known = argKeyOf(key);
        if (known == ArgKey::Correlation || known == ArgKey::ExternalId) {
            if (r.peek() == JsonKind::Number) {
                std::int64_t v = 0;
                if (parseScaled(r.readNumberText(), 1, v)) {
                    (known == ArgKey::Correlation ? e.correlation : e.externalId) = v;
                    continue;
                }
                e.args += e.args.size() > 1 ? "," : "";
                appendJsonString(e.args, key);
                e.args += ':';
                e.args += "null";
                continue;
            }
        } else if (known == ArgKey::KinetoIndex) {
            r.skipValue();
            continue;
        } else if (known == ArgKey::PerEvent && r.peek() == JsonKind::Number) {
            std::int64_t v = 0;
            const std::string_view number = r.readNumberText();
            if (parseScaled(number, 1, v) && number.find_first_of(".eE") == std::string_view::npos) {
                e.perEvent.emplace_back(p.intern(key), v);
            } else {
                e.args += e.args.size() > 1 ? "," : "";
                appendJsonString(e.args, key);
                e.args += ':';
                e.args += number;
            }
            continue;
        }
        if (e.args.size() > 1)
            e.args += ',';
        appendJsonString(e.args, key);
        e.args += ':';
        r.skipValue(&e.args);
    }
    e.args += '}';
}

} // namespace detail

namespace {

bool contains(std::string_view haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string_view::npos;
}

// `text` in ASCII lower case, into `out` (whose capacity is reused).
void lowerInto(std::string& out, std::string_view text)
{
    out.assign(text);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
}

} // namespace

using profile::Profile;
using profile::SliceClass;

SliceClass classifySlice(std::string_view name, std::string_view category)
{
    if (category.empty())
        return SliceClass::Other;
    // Lowered into buffers this thread keeps: called for every event of a multi-GB file, a fresh string
    // (and for kernels a second one) per call was a measurable share of the import.
    thread_local std::string cat, n;
    lowerInto(cat, category);
    // MTIA's device work (Kineto on Meta's accelerator): kernels and DMA requests under one category, told
    // apart by name as HTA tells them (a name starting with "dma" is a memory kernel, with "hccl" a
    // collective).
    const bool mtia = cat == "mtia_ccp_events";
    if (cat == "kernel" || mtia) {
        lowerInto(n, name);
        if (contains(n, "nccl") || contains(n, "rccl") || n.starts_with("hccl") || contains(n, "allreduce") ||
            contains(n, "all_reduce") || contains(n, "allgather") || contains(n, "all_gather") ||
            contains(n, "reducescatter") || contains(n, "reduce_scatter") || contains(n, "alltoall") ||
            contains(n, "sendrecv"))
            return SliceClass::Communication;
        if (mtia && n.starts_with("dma"))
            return SliceClass::Memcpy;
        return SliceClass::Kernel;
    }
    if (cat == "gpu_memcpy" || cat == "memcpy")
        return SliceClass::Memcpy;
    if (cat == "gpu_memset" || cat == "memset")
        return SliceClass::Memset;
    if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "runtime" || cat == "hip_runtime" ||
        cat == "mtia_runtime") {
        if (contains(name, "Synchronize"))
            return SliceClass::RuntimeSync;
        return SliceClass::Runtime;
    }
    if (cat == "cpu_op" || cat == "operator" || cat == "user_annotation" || cat == "python_function" ||
        cat == "python_function_call")
        return SliceClass::CpuOp;
    if (cat == "gpu_user_annotation")
        return SliceClass::DeviceAnnotation;
    return SliceClass::Other;
}

Result<Profile> importChromeJson(const std::string& path, const ImportOptions& options)
{
    std::error_code sizeError;
    const std::uint64_t fileBytes = std::filesystem::file_size(path, sizeError);
    auto reader = JsonReader::open(path, options.limits.decompressedAllowance(sizeError ? 0 : fileBytes),
                                   options.limits.expansionMessage(sizeError ? 0 : fileBytes));
    if (!reader)
        return reader.error();
    Profile profile;
    profile.source = path;
    try {
        detail::Importer(**reader, profile, options).run();
    } catch (const JsonSyntaxError& e) {
        return (*reader)->errorAt(e.offset, e.message);
    }
    return profile;
}

} // namespace xps::importing
