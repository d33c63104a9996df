// Importing Chrome / Perfetto / PyTorch profiler (Kineto) JSON: every phase the importer reads, exact
// timestamps, gzip, truncated and malformed files (located messages, never a crash), a real Node.js trace,
// and the Chrome JSON export's round trip from every importer.
#include "core/import_test_support.h"
#include "core/round_trip.h"

#include "export/chrome_trace.h"
#include "import/json_reader.h"
#include "import/read_ahead_file.h"
#include "profile/profile_analysis.h"
#include "profile/profile_report.h"

#include <filesystem>
#include <fstream>

using namespace xps;
using namespace xps::test::imported;
using profile::Nanos;
using profile::Profile;
using test::chakraJson;
using test::writeChakraEt;

class TestImportChrome : public QObject
{
    Q_OBJECT

private slots:
    void kinetoTracksAndFlows()
    {
        auto p = importing::importProfile(fixture());
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->format, std::string("PyTorch profiler (Kineto) JSON"));
        QCOMPARE(p->slices.size(), std::size_t(19));
        QCOMPARE(p->flows.size(), std::size_t(6)); // one ac2g flow per launch
        const profile::TrackId gpu = trackNamed(*p, "GPU 0"), stream7 = trackNamed(*p, "stream 7"),
                               host = trackNamed(*p, "main thread");
        QVERIFY(gpu.valid() && stream7.valid() && host.valid());
        QVERIFY(p->track(gpu).device);
        QVERIFY(p->track(stream7).device);
        QVERIFY(!p->track(host).device);
        QCOMPARE(p->track(stream7).parent, gpu);
        // Every flow runs from a launch call on the host thread to device work on a stream.
        for (const profile::Flow& f : p->flows) {
            QCOMPARE(p->slice(f.from).track(), host);
            QVERIFY(profile::isDeviceWork(p->classOf(p->slice(f.to))));
            QCOMPARE(p->slice(f.from).link, p->slice(f.to).link); // the same correlation id
        }
        // Nesting: ProfilerStep > aten::mm > cudaLaunchKernel.
        QCOMPARE(named(*p, "ProfilerStep#1")[0]->depth(), 0u);
        QCOMPARE(named(*p, "aten::mm")[0]->depth(), 1u);
        QCOMPARE(named(*p, "cudaLaunchKernel")[0]->depth(), 2u);
        // The correlation id is the slice's link, not one argument set per kernel: both sgemm launches
        // (same grid and block) share one set.
        const auto sgemm = named(*p, "sgemm_128x64");
        QCOMPARE(sgemm.size(), std::size_t(2));
        QCOMPARE(sgemm[0]->link, 11u);
        QCOMPARE(sgemm[1]->link, 16u);
        QVERIFY(sgemm[0]->args != 0);
        QCOMPARE(p->args(sgemm[0]->args),
                 std::string(R"({"device":0,"stream":7,"grid":[16,4,1],"block":[256,1,1]})"));
        QCOMPARE(sgemm[0]->args, sgemm[1]->args);
        QCOMPARE(named(*p, "aten::mm")[0]->link, 1u); // External id for CPU ops
    }

    void kinetoWithoutMetadataNamesItsDevice()
    {
        // The fixture without its metadata events, as some tools pass Kineto traces on: its device rows
        // are still a GPU and a stream, not "Process 0" and "Thread 7".
        nlohmann::json j = nlohmann::json::parse(std::ifstream(fixture()));
        auto& events = j["traceEvents"];
        events.erase(std::remove_if(events.begin(), events.end(),
                                    [](const nlohmann::json& e) { return e.value("ph", "") == "M"; }),
                     events.end());
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("no_metadata.json")).toStdString();
        std::ofstream(path) << j.dump();
        auto p = importing::importProfile(path);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        const profile::TrackId gpu = trackNamed(*p, "GPU 0"), stream = trackNamed(*p, "stream 7");
        QVERIFY(gpu.valid() && stream.valid());
        QVERIFY(p->track(gpu).device && p->track(stream).device);
        QCOMPARE(p->track(stream).parent, gpu);
        QVERIFY(!trackNamed(*p, "Process 0").valid());
        // The host thread is neither.
        const profile::Track& host = p->track(named(*p, "aten::mm")[0]->track());
        QVERIFY(!host.device);
        QVERIFY2(host.name.starts_with("Thread "), host.name.c_str());
    }

    // Our export's detail rows (a replay's bundles and stalls): drawn, not operations; a malformed entry
    // is said, not fatal.
    void detailTracksAreDrawnNotCounted()
    {
        const std::string json = R"({"traceEvents": [
            {"ph": "X", "pid": 0, "tid": 1, "ts": 0, "dur": 10, "name": "matmul"},
            {"ph": "X", "pid": 0, "tid": 5, "ts": 0, "dur": 1, "name": "pc 0x1"},
            {"ph": "X", "pid": 0, "tid": 5, "ts": 2, "dur": 1, "name": "pc 0x1"}],
            "xpushark_semantics": {"version": 1, "detail_tracks": [[0, 5], "tid 6"]}})";
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("detail.json")).toStdString();
        std::ofstream(path) << json;
        auto p = importing::importProfile(path);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QVERIFY(p->track(named(*p, "pc 0x1")[0]->track()).detail);
        QVERIFY(!p->track(named(*p, "matmul")[0]->track()).detail);
        const profile::ProfileAnalysis a = profile::analyzeProfile(*p);
        QCOMPARE(a.ops.size(), std::size_t{1});
        QCOMPARE(p->string(p->types[a.ops[0].type].name), std::string("matmul"));
        QCOMPARE(p->repairs.size(), std::size_t{1});
        QVERIFY2(p->repairs[0].text().find("xpushark_semantics") != std::string::npos,
                 p->repairs[0].text().c_str());
    }

    void perEventArgumentsStayShared()
    {
        // Kineto numbers every op ("Sequence number"): kept per slice, so the ops share one argument set.
        QTemporaryDir dir;
        const Profile p = importText(dir, "seq.json", R"([
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1,"dur":1,"args":{"Sequence number":41,"Fwd thread id":0}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":3,"dur":1,"args":{"Fwd thread id":0,"Sequence number":42}},
{"ph":"B","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":5,"args":{"Sequence number":43}},
{"ph":"E","pid":1,"tid":1,"ts":6}])");
        const auto add = named(p, "aten::add");
        QCOMPARE(add.size(), std::size_t(2));
        QCOMPARE(add[0]->args, add[1]->args);
        QCOMPARE(p.argsOf(profile::SliceRow(static_cast<std::uint32_t>(add[0] - p.slices.data()))),
                 std::string(R"({"Fwd thread id":0,"Sequence number":41})"));
        QCOMPARE(p.argsOf(profile::SliceRow(static_cast<std::uint32_t>(add[1] - p.slices.data()))),
                 std::string(R"({"Fwd thread id":0,"Sequence number":42})"));
        const auto mul = named(p, "aten::mul");
        QCOMPARE(p.argsOf(profile::SliceRow(static_cast<std::uint32_t>(mul[0] - p.slices.data()))),
                 std::string(R"({"Sequence number":43})"));
    }

    void chromePhases()
    {
        QTemporaryDir dir;
        const Profile p = importText(dir, "phases.json", R"([
{"ph":"M","name":"process_name","pid":"Renderer","args":{"name":"renderer"}},
{"ph":"M","name":"thread_name","pid":"Renderer","tid":"main","args":{"name":"CrRendererMain"}},
{"ph":"B","name":"outer","cat":"c","pid":"Renderer","tid":"main","ts":10},
{"ph":"B","name":"inner","pid":"Renderer","tid":"main","ts":12.5,"args":{"k":"v"}},
{"ph":"E","pid":"Renderer","tid":"main","ts":14},
{"ph":"E","pid":"Renderer","tid":"main","ts":20,"args":{"end":1}},
{"ph":"E","pid":"Renderer","tid":"main","ts":21},
{"ph":"i","name":"thread-instant","pid":"Renderer","tid":"main","ts":13,"s":"t"},
{"ph":"I","name":"global-instant","pid":"Renderer","tid":"main","ts":15,"s":"g"},
{"ph":"C","name":"heap","pid":"Renderer","ts":10,"args":{"used":5,"free":"7"}},
{"ph":"C","name":"heap","pid":"Renderer","ts":18,"args":{"used":6,"free":6}},
{"ph":"b","name":"load","cat":"net","id":"0x1","pid":"Renderer","ts":11},
{"ph":"b","name":"dns","cat":"net","id":"0x1","pid":"Renderer","ts":11.5},
{"ph":"e","name":"dns","cat":"net","id":"0x1","pid":"Renderer","ts":13},
{"ph":"n","name":"redirect","cat":"net","id":"0x1","pid":"Renderer","ts":14},
{"ph":"e","name":"load","cat":"net","id":"0x1","pid":"Renderer","ts":19},
{"ph":"X","name":"task","pid":"Renderer","tid":"io","ts":30,"dur":5},
{"ph":"X","name":"reply","pid":"Renderer","tid":"main","ts":40,"dur":2,"bind_id":"q","flow_in":true},
{"ph":"X","name":"post","pid":"Renderer","tid":"io","ts":31,"dur":1,"bind_id":"q","flow_out":true},
{"ph":"s","name":"msg","cat":"ipc","id":7,"pid":"Renderer","tid":"io","ts":32},
{"ph":"f","name":"msg","cat":"ipc","id":7,"pid":"Renderer","tid":"main","ts":39},
{"ph":"X","name":"negative","pid":"Renderer","tid":"main","ts":50,"dur":-1},
{"ph":"X","name":"bad ts","pid":"Renderer","tid":"main","ts":"soon","dur":1},
{"ph":"B","name":"never ends","pid":"Renderer","tid":"io","ts":60},
{"ph":"O","name":"object","pid":"Renderer","ts":61,"id":"0x2"}
])");
        QCOMPARE(p.format, std::string("Chrome trace JSON"));
        const profile::TrackId main = trackNamed(p, "CrRendererMain");
        QVERIFY(main.valid());
        QCOMPARE(p.track(p.track(main).parent).name, std::string("renderer"));
        const auto outer = named(p, "outer"), inner = named(p, "inner");
        QCOMPARE(outer.size(), std::size_t(1));
        QCOMPARE(outer[0]->start, us(10));
        QCOMPARE(outer[0]->duration, us(10));
        QCOMPARE(inner[0]->start, Nanos(12500));
        QCOMPARE(inner[0]->duration, Nanos(1500));
        QCOMPARE(inner[0]->depth(), 1u);
        QCOMPARE(p.args(outer[0]->args), std::string(R"({"end":1})")); // given at its end
        QCOMPARE(named(p, "thread-instant")[0]->duration, Nanos(0));
        QCOMPARE(named(p, "thread-instant")[0]->depth(), 2u); // inside outer > inner
        QCOMPARE(p.track(named(p, "global-instant")[0]->track()).name, std::string("instants"));
        // Counters: one track per series; a numeric string counts.
        const profile::TrackId used = trackNamed(p, "heap used"), freeBytes = trackNamed(p, "heap free");
        QVERIFY(used.valid() && freeBytes.valid());
        QCOMPARE(p.counters.size(), std::size_t(4));
        std::vector<double> freeValues;
        for (const profile::CounterSample& c : p.counters)
            if (c.track == freeBytes)
                freeValues.push_back(c.value);
        QCOMPARE(freeValues, (std::vector<double>{7, 6}));
        // Async: nested begin on the same track one row down; the async instant on it too.
        const auto load = named(p, "load"), dns = named(p, "dns");
        QCOMPARE(load[0]->track(), dns[0]->track());
        QCOMPARE(p.track(load[0]->track()).kind, profile::TrackKind::Async);
        QCOMPARE(dns[0]->depth(), 1u);
        QCOMPARE(load[0]->duration, us(8));
        QCOMPARE(named(p, "redirect")[0]->track(), load[0]->track());
        // Flows: v2 (post -> reply) and v1 (s inside task -> f binding to the next slice, reply).
        QCOMPARE(p.flows.size(), std::size_t(2));
        for (const profile::Flow& f : p.flows) {
            QCOMPARE(p.nameOf(p.slice(f.to)), std::string("reply"));
            const std::string from = p.nameOf(p.slice(f.from));
            QVERIFY2(from == "post" || from == "task", from.c_str());
        }
        // Repairs, each said once with the first place it happened.
        QVERIFY(hasWarning(p, "end events (\"E\") without a begin event"));
        QVERIFY(hasWarning(p, "negative \"dur\" were skipped; the first at $[21].dur"));
        QVERIFY(hasWarning(
            p, "wrong type were skipped (expected a number of microseconds for ts); the first at $[22].ts"));
        QVERIFY(hasWarning(p, "1 slices had a begin but no end"));
        QVERIFY(hasWarning(p, "events of phase \"O\""));
        QCOMPARE(named(p, "never ends")[0]->end(), p.endTime());
        // The same repairs typed: by kind, with their count and first place apart.
        const auto repairOf = [&](std::string_view what) -> const profile::ImportRepair* {
            for (const profile::ImportRepair& r : p.repairs)
                if (r.what.find(what) != std::string::npos)
                    return &r;
            return nullptr;
        };
        const profile::ImportRepair* negative = repairOf("negative \"dur\"");
        QVERIFY(negative);
        QCOMPARE(negative->kind, profile::RepairKind::Skipped);
        QCOMPARE(negative->count, std::uint64_t(1));
        QCOMPARE(negative->firstAt, std::string("$[21].dur"));
        QVERIFY(repairOf("had a begin but no end"));
        QCOMPARE(repairOf("had a begin but no end")->kind, profile::RepairKind::Closed);
        const nlohmann::json json = profile::profileAnalysisJson(p, profile::analyzeProfile(p));
        QCOMPARE(json["repairs"].size(), p.repairs.size());
        QCOMPARE(json["warnings"].size(), p.repairs.size());
        bool found = false;
        for (const nlohmann::json& r : json["repairs"])
            found = found || (r["kind"] == "skipped" && r["first_at"] == "$[21].dur" && r["count"] == 1);
        QVERIFY(found);
    }

    void kinetoMemoryEventsBecomeCounters()
    {
        // The allocator's "[memory]" instants carry its totals after each allocation or free: two counter
        // series per device, not instants; an instant named so without totals stays an instant.
        QTemporaryDir dir;
        const Profile p = importText(dir, "memory.json", R"({"schemaVersion":1,"traceEvents":[
{"ph":"X","name":"aten::empty","cat":"cpu_op","pid":7,"tid":7,"ts":10,"dur":5},
{"ph":"i","name":"[memory]","cat":"cpu_instant_event","s":"t","pid":7,"tid":7,"ts":11,
 "args":{"Device Type":1,"Device Id":0,"Addr":140000,"Bytes":4096,"Total Allocated":4096,"Total Reserved":2097152}},
{"ph":"i","name":"[memory]","cat":"cpu_instant_event","s":"t","pid":7,"tid":7,"ts":12,
 "args":{"Device Type":0,"Device Id":-1,"Bytes":64,"Total Allocated":64,"Total Reserved":0}},
{"ph":"i","name":"[memory]","cat":"cpu_instant_event","s":"t","pid":7,"tid":7,"ts":20,
 "args":{"Device Type":1,"Device Id":0,"Addr":140000,"Bytes":-4096,"Total Allocated":0,"Total Reserved":2097152}},
{"ph":"i","name":"[memory]","pid":7,"tid":7,"ts":21,"s":"t"}
]})");
        const profile::TrackId gpuAllocated = trackNamed(p, "memory allocated (GPU 0)"),
                               gpuReserved = trackNamed(p, "memory reserved (GPU 0)"),
                               cpuAllocated = trackNamed(p, "memory allocated (CPU)");
        QVERIFY(gpuAllocated.valid() && gpuReserved.valid() && cpuAllocated.valid());
        QCOMPARE(p.track(gpuAllocated).kind, profile::TrackKind::Counter);
        std::vector<std::pair<Nanos, double>> allocated;
        for (const profile::CounterSample& c : p.counters)
            if (c.track == gpuAllocated)
                allocated.emplace_back(c.time, c.value);
        QCOMPARE(allocated, (std::vector<std::pair<Nanos, double>>{{us(11), 4096.0}, {us(20), 0.0}}));
        QCOMPARE(p.counters.size(), std::size_t(6));
        QCOMPARE(named(p, "[memory]").size(), std::size_t(1)); // the one without totals
    }

    void exactTimestamps_data()
    {
        QTest::addColumn<QString>("ts");
        QTest::addColumn<qint64>("nanos");
        QTest::newRow("integer") << QStringLiteral("12") << qint64(12000);
        QTest::newRow("fraction") << QStringLiteral("1.5") << qint64(1500);
        QTest::newRow("nanoseconds") << QStringLiteral("1680000000000.123") << qint64(1680000000000123);
        QTest::newRow("rounded") << QStringLiteral("2.0006") << qint64(2001);
        QTest::newRow("exponent") << QStringLiteral("1.5e3") << qint64(1500000);
        QTest::newRow("negative exponent") << QStringLiteral("25e-3") << qint64(25);
        QTest::newRow("quoted") << QStringLiteral("\"7.25\"") << qint64(7250);
        QTest::newRow("negative") << QStringLiteral("-3") << qint64(-3000);
    }

    void exactTimestamps()
    {
        QFETCH(QString, ts);
        QFETCH(qint64, nanos);
        QTemporaryDir dir;
        const Profile p =
            importText(dir, "ts.json",
                       R"([{"ph":"X","name":"a","pid":1,"tid":1,"dur":1,"ts":)" + ts.toStdString() + "}]");
        QCOMPARE(p.slices.size(), std::size_t(1));
        QCOMPARE(p.slices[0].start, Nanos(nanos));
    }

    void aRealNodeJsTraceImports()
    {
        // Not written by hand: what Node.js 20.20.2 wrote for tests/data/node_trace_step.js (`node
        // --trace-event-categories v8,node,node.async_hooks,node.fs.sync --trace-events-enabled
        // node_trace_step.js`): a real tool's Chrome trace, with B/E pairs, complete, async (b/e), instant
        // and metadata events, string ids, tts/tdur thread times.
        const std::string path = test::sourceDir() + "/tests/data/node_trace.json";
        auto kind = importing::detectInput(path);
        QVERIFY(kind.ok() && *kind == importing::InputKind::ChromeJson);
        auto p = importing::importProfile(path);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->format, std::string("Chrome trace JSON"));
        QVERIFY2(p->repairs.empty(), p->repairs.empty() ? "" : p->repairs[0].text().c_str());
        QCOMPARE(p->slices.size(), std::size_t(60));
        QCOMPARE(p->track(trackNamed(*p, "node")).kind, profile::TrackKind::Process);
        QCOMPARE(p->track(trackNamed(*p, "JavaScriptMainThread")).kind, profile::TrackKind::Thread);
        // Four sync writes of the blocks, five reads (the script, then the blocks); four gzips, as async
        // slices on their own track.
        QCOMPARE(named(*p, "fs.sync.write").size(), std::size_t(4));
        QCOMPARE(named(*p, "fs.sync.read").size(), std::size_t(5));
        const auto gzips = named(*p, "ZLIB");
        QCOMPARE(gzips.size(), std::size_t(4));
        QCOMPARE(p->track(gzips[0]->track()).kind, profile::TrackKind::Async);
        // The timer's callback runs inside RunTimers: nested one level deeper, within its time.
        const profile::Slice* timers = named(*p, "RunTimers")[0];
        const profile::Slice* callback = named(*p, "Timeout_CALLBACK")[0];
        QVERIFY(callback->start >= timers->start && callback->end() <= timers->end());
        QVERIFY(callback->depth() > timers->depth());
        QVERIFY(profile::analyzeProfile(*p).ops.size() > 10);
        // Through our Chrome export and back: the same slices.
        QTemporaryDir dir;
        const std::string out = dir.filePath(QStringLiteral("again.json")).toStdString();
        QVERIFY(exporting::writeChromeTrace(*p, out).ok());
        auto again = importing::importProfile(out);
        QVERIFY(again.ok());
        QCOMPARE(again->slices.size(), p->slices.size());
    }

    void gzipOpensDirectly()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("step.json.gz")).toStdString();
        const std::string text = test::readFile(fixture());
        QVERIFY(writeGzip(path, text));
        auto kind = importing::detectInput(path);
        QVERIFY(kind.ok() && *kind == importing::InputKind::ChromeJson);
        auto p = importing::importProfile(path);
        QVERIFY(p.ok());
        QCOMPARE(p->slices.size(), std::size_t(19));
        QCOMPARE(profile::analyzeProfile(*p).criticalPath.length, us(495));
    }

    void readAheadHandsOutTheFileInOrder()
    {
        // Three and a half of the reader's blocks and a few bytes, the last block short; plain and gzip.
        QTemporaryDir dir;
        std::string bytes(
            3 * importing::ReadAheadFile::kBlockBytes + importing::ReadAheadFile::kBlockBytes / 2 + 17, '\0');
        std::uint32_t x = 20261126;
        for (char& c : bytes)
            c = static_cast<char>((x = x * 1664525u + 1013904223u) >> 24);
        const std::string plain = dir.filePath(QStringLiteral("blocks.bin")).toStdString();
        const std::string packed = dir.filePath(QStringLiteral("blocks.bin.gz")).toStdString();
        test::writeFile(plain, bytes);
        QVERIFY(writeGzip(packed, bytes));
        for (const std::string& path : {plain, packed}) {
            auto file = importing::ReadAheadFile::open(path);
            QVERIFY(file.ok());
            std::string read;
            std::uint64_t offset = 0;
            int blocks = 0;
            for (;;) {
                const importing::ReadAheadFile::Block& b = (*file)->next();
                QVERIFY2(b.error.empty(), b.error.c_str());
                QVERIFY((*file)->fileOffset() >= offset); // progress never goes back
                offset = (*file)->fileOffset();
                if (b.size == 0)
                    break;
                read.append(b.data, b.size);
                ++blocks;
            }
            QVERIFY(read == bytes);
            QCOMPARE(blocks, 4);
            QCOMPARE(offset, static_cast<std::uint64_t>(std::filesystem::file_size(path)));
            QCOMPARE((*file)->next().size, std::size_t(0)); // the end stays the end
        }
        // Closed after one block, with the reader blocked on a full queue: the destructor stops and joins it.
        {
            auto file = importing::ReadAheadFile::open(plain);
            QVERIFY(file.ok());
            QCOMPARE((*file)->next().size, importing::ReadAheadFile::kBlockBytes);
        }
        // A damaged gzip stream: zlib's message, never a crash; a cut one reads what it holds, then ends.
        std::string damaged = test::readFile(packed);
        for (std::size_t i = damaged.size() / 2; i < damaged.size() / 2 + 64; ++i)
            damaged[i] = static_cast<char>(~damaged[i]);
        test::writeFile(packed, damaged);
        {
            auto file = importing::ReadAheadFile::open(packed);
            QVERIFY(file.ok());
            std::string error;
            for (int i = 0; i < 8 && error.empty(); ++i) {
                const importing::ReadAheadFile::Block& b = (*file)->next();
                error = b.error;
                if (b.size == 0 && error.empty())
                    break;
            }
            QVERIFY2(!error.empty(), "a damaged stream reads as an error");
        }
        const std::string whole = test::readFile(packed);
        QVERIFY(writeGzip(packed, bytes));
        test::writeFile(packed, test::readFile(packed).substr(0, whole.size() / 2));
        {
            auto file = importing::ReadAheadFile::open(packed);
            QVERIFY(file.ok());
            std::size_t total = 0;
            bool truncated = false;
            for (;;) {
                const importing::ReadAheadFile::Block& b = (*file)->next();
                QVERIFY(b.error.empty());
                total += b.size;
                truncated = b.truncated;
                if (b.size == 0)
                    break;
            }
            QVERIFY(truncated);
            QVERIFY(total > 0 && total < bytes.size());
        }
    }

    void eventsAcrossReadBlocks()
    {
        // 40,000 events (about 3 MB of text): tokens and strings cut by many block boundaries.
        QTemporaryDir dir;
        std::string text = "{\"traceEvents\": [\n";
        constexpr int kEvents = 40'000;
        for (int i = 0; i < kEvents; ++i) {
            text += "{\"ph\": \"X\", \"name\": \"kernel_" + std::to_string(i % 97) +
                    "_with_a_long_name\", \"pid\": 1, \"tid\": " + std::to_string(i % 3) +
                    ", \"ts\": " + std::to_string(i * 10) + ".5, \"dur\": 7.25}";
            text += i + 1 < kEvents ? ",\n" : "\n";
        }
        text += "]}\n";
        QVERIFY(text.size() > 2 * importing::ReadAheadFile::kBlockBytes);
        const std::string plain = dir.filePath(QStringLiteral("many.json")).toStdString();
        const std::string packed = dir.filePath(QStringLiteral("many.json.gz")).toStdString();
        test::writeFile(plain, text);
        QVERIFY(writeGzip(packed, text));
        for (const std::string& path : {plain, packed}) {
            auto p = importing::importProfile(path);
            QVERIFY(p.ok());
            QCOMPARE(p->slices.size(), std::size_t(kEvents));
            QCOMPARE(named(*p, "kernel_96_with_a_long_name").size(), std::size_t(kEvents / 97));
            QCOMPARE(p->repairs.size(), std::size_t(0));
        }
    }

    void truncatedFileKeepsWhatItHas()
    {
        QTemporaryDir dir;
        const std::string text = test::readFile(fixture());
        // Cut inside the kernel events: the host side and the first kernels survive.
        const std::size_t cut = text.find("relu_kernel") + 4;
        const std::string path = dir.filePath(QStringLiteral("cut.json")).toStdString();
        test::writeFile(path, text.substr(0, cut));
        auto p = importing::importProfile(path);
        QVERIFY(p.ok());
        QVERIFY(hasWarning(*p, "the file ends early"));
        QVERIFY(hasWarning(*p, "the last, incomplete one was dropped"));
        QCOMPARE(named(*p, "relu_kernel").size(), std::size_t(0));
        QCOMPARE(named(*p, "sgemm_128x64").size(), std::size_t(1));
        // Cut before the first event: nothing to keep, so an error with the place.
        test::writeFile(path, text.substr(0, text.find("traceEvents") + 20));
        auto none = importing::importProfile(path);
        QVERIFY(!none.ok());
        QVERIFY2(none.error().location().find("/cut.json:5:") != std::string::npos,
                 none.error().location().c_str());
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("location");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << QString() << QStringLiteral("1:1") << QStringLiteral("the file is empty");
        QTest::newRow("no events") << QStringLiteral("{\"traceEvents\": 5}") << QStringLiteral("1:17")
                                   << QStringLiteral("$.traceEvents: expected an array of events");
        QTest::newRow("object without traceEvents") << QStringLiteral("{\"a\": 1}") << QStringLiteral("1:9")
                                                    << QStringLiteral("no \"traceEvents\" array");
        QTest::newRow("missing comma")
            << QStringLiteral("[\n{\"ph\":\"X\" \"ts\":1}]") << QStringLiteral("2:11")
            << QStringLiteral("expected ',' or '}' after an object member, found '\"'");
        QTest::newRow("bad escape") << QStringLiteral("[{\"name\":\"a\\q\"}]") << QStringLiteral("1:14")
                                    << QStringLiteral("unknown escape \\q");
        QTest::newRow("lone surrogate")
            << QStringLiteral("[{\"name\":\"\\udc00\"}]") << QStringLiteral("1:17")
            << QStringLiteral("a low surrogate without a high surrogate");
        QTest::newRow("deep args") << (QStringLiteral("[{\"args\":") + QString(70, QLatin1Char('[')))
                                   << QStringLiteral("1:75") << QStringLiteral("nested more than 64 deep");
        QTest::newRow("not json") << QStringLiteral("[hello]") << QStringLiteral("1:2")
                                  << QStringLiteral("expected a JSON value, found 'h'");
    }

    void malformed()
    {
        QFETCH(QString, text);
        QFETCH(QString, location);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("bad.json")).toStdString();
        test::writeFile(path, text.toStdString());
        auto p = importing::importChromeJson(path);
        QVERIFY(!p.ok());
        QCOMPARE(p.error().location(), path + ":" + location.toStdString());
        QVERIFY2(p.error().message().find(message.toStdString()) != std::string::npos,
                 p.error().message().c_str());
    }

    void convertRoundTrip()
    {
        auto original = importing::importProfile(fixture());
        QVERIFY(original.ok());
        QTemporaryDir dir;
        const std::string out = dir.filePath(QStringLiteral("out.json")).toStdString();
        QVERIFY(exporting::writeChromeTrace(*original, out).ok());
        auto again = importing::importProfile(out);
        QVERIFY(again.ok());
        QCOMPARE(again->slices.size(), original->slices.size());
        QCOMPARE(again->flows.size(), original->flows.size());
        for (std::size_t i = 0; i < original->slices.size(); ++i) {
            const profile::Slice &a = original->slices[i], &b = again->slices[i];
            QCOMPARE(again->nameOf(b), original->nameOf(a));
            QCOMPARE(again->categoryOf(b), original->categoryOf(a));
            QCOMPARE(b.start, a.start);
            QCOMPARE(b.duration, a.duration);
            QCOMPARE(b.link, a.link);
            QCOMPARE(b.depth(), a.depth());
            QCOMPARE(again->argsOf(profile::SliceRow(static_cast<std::uint32_t>(i))),
                     original->argsOf(profile::SliceRow(static_cast<std::uint32_t>(i))));
            QCOMPARE(again->track(b.track()).name, original->track(a.track()).name);
        }
        QCOMPARE(profile::analyzeProfile(*again).criticalPath.length, us(495));
        const std::string difference = test::roundTripDifference(*original);
        QVERIFY2(difference.empty(), difference.c_str());
    }

    void everyImporterRoundTripsThroughChromeJson()
    {
        // XSpace (train step: a host plane driving a TPU) and Chakra (two ranks with a collective): their
        // devices, classes, flows and critical path come back from the Chrome JSON export.
        QTemporaryDir dir;
        const std::string xspace = dir.filePath(QStringLiteral("run.xplane.pb")).toStdString();
        test::writeFile(xspace, trainStepXSpace().SerializeAsString());
        for (int rank = 0; rank < 2; ++rank)
            writeChakraEt(dir.filePath(QStringLiteral("step.%1.et").arg(rank)).toStdString(),
                          chakraStepRank(rank));
        for (const std::string& path : {xspace, dir.filePath(QStringLiteral("step.0.et")).toStdString()}) {
            auto p = importing::importProfile(path);
            QVERIFY2(p.ok(), path.c_str());
            QVERIFY(profile::analyzeProfile(*p).criticalPath.length > 0);
            const std::string difference = test::roundTripDifference(*p);
            QVERIFY2(difference.empty(), (path + ": " + difference).c_str());
        }
    }

    void hostileMutations()
    {
        // Hundreds of mutations of the fixture: each imports or fails with a located message.
        importMutations(test::readFile(fixture()), "m.json", 20261123, [](std::string& s, auto& rng) {
            const std::size_t at = rng() % s.size();
            switch (rng() % 4) {
            case 0: s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8))); break;
            case 1: s.resize(at); break;
            case 2: s.erase(at, std::min<std::size_t>(s.size() - at, rng() % 64)); break;
            case 3: s[at] = "{}[],:\"0123456789-eE.\\"[rng() % 22]; break;
            }
        });
    }
};

QTEST_GUILESS_MAIN(TestImportChrome)
#include "tst_import_chrome.moc"
