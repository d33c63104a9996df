// The trace formats: JSON <-> container round trips are lossless (programs and bytes bit-identical), and
// malformed, truncated, hostile or newer files get an error naming the file, the JSON path or table row.
#include "test_support.h"

#include "asm/assembler.h"
#include "trace/trace_container.h"
#include "trace/trace_io.h"
#include "trace/trace_json.h"
#include "util/atomic_file.h"
#include "util/sqlite.h"

#include <QDir>
#include <QTemporaryDir>
#include <set>
#include <stdexcept>

#include <chrono>
#include <csignal>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

using namespace xps;

namespace {

trace::Trace sampleTrace(std::size_t snapshotBytes)
{
    const char* source = R"(
.name "round trip"
.machine chips=2, hbm_bandwidth_gbs=819
.hbm  weights, 0x0, 0x100000, dtype=f32
.vmem tile, 0x0, 4096
.chip 0-1
.region layer, level=layer
.init v2, random_u32, seed=3
.output tile
top:
    region.begin layer
    dma.start vmem[tile], hbm[weights], 4096, 0, engine=1, rows=2, sstride=8192, dstride=2048, chunk=1024
    sync.wait 0, 4 ; sadd s1, s1, 1
    vld v1, [tile] ; vadd.f32 v2, v1, v1
    region.end ; brnz s1, top
    halt
)";
    auto t = assembly::assemble(source, "sample.xasm");
    if (!t.ok())
        qFatal("%s", t.error().toString().c_str());
    std::mt19937 rng(42);
    trace::MemoryInit literal;
    literal.space = isa::Space::Hbm;
    literal.address = 0x200000;
    literal.size = snapshotBytes;
    literal.payload.bytes.resize(snapshotBytes);
    for (auto& b : literal.payload.bytes)
        b = static_cast<std::uint8_t>(rng());
    t->chips[1].initial.memory.push_back(literal);
    trace::Payload reg;
    reg.bytes.assign(4096, 0xAB);
    t->chips[0].initial.vectorRegisters[7] = reg;
    t->recorded =
        trace::RecordedTiming{{{ChipId(0), "layer", 0, 12345}}, {{ChipId(1), 2, 99}, {ChipId(0), 4, 100}}};
    t->generatedBy = trace::GeneratedBy{"smalltile", "naive", {{"tile_bytes", 8192}, {"total_bytes", 1 << 20}}};
    return std::move(t).value();
}

std::string jsonError(const std::string& text)
{
    const auto r = trace::readTraceJson(text, "t.json");
    return r.ok() ? "<loaded without error>" : r.error().primary().toString();
}

// A valid minimal JSON trace with `patch` merged over it (RFC 7396 merge patch).
std::string minimalJson(const std::string& patch)
{
    nlohmann::json doc = nlohmann::json::parse(R"({
      "format": "xpushark-trace", "version": 1, "machine": {"chips": 1},
      "chips": [{"chip": 0, "program": ["smov s1, 1", "halt"],
                 "buffers": [{"name": "a", "space": "vmem", "address": 0, "size": 4096}],
                 "initial": {"memory": [{"space": "hbm", "address": 0, "size": 16,
                                          "base64": "AAECAwQFBgcICQoLDA0ODw=="}]}}]})");
    doc.merge_patch(nlohmann::json::parse(patch));
    return doc.dump();
}

} // namespace

class TestTraceIo : public QObject
{
    Q_OBJECT
private slots:
    void jsonRoundTrip()
    {
        const trace::Trace t = sampleTrace(1000);
        const std::string text = trace::writeTraceJson(t);
        const auto back = trace::readTraceJson(text, "t.json");
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().toString().c_str());
        QVERIFY(*back == t);
        QCOMPARE(trace::writeTraceJson(*back), text);
    }

    void containerRoundTripIsBitIdentical()
    {
        QTemporaryDir dir;
        // 9 MiB + 3 bytes: several blob chunks and a ragged last one.
        const trace::Trace t = sampleTrace((9u << 20) + 3);
        const std::string xps = dir.filePath(QStringLiteral("t.xps")).toStdString();
        const std::string json = dir.filePath(QStringLiteral("t.xtrace.json")).toStdString();
        QVERIFY(trace::saveTrace(t, xps).ok());
        const auto fromXps = trace::loadTrace(xps);
        QVERIFY2(fromXps.ok(), fromXps.ok() ? "" : fromXps.error().toString().c_str());
        QVERIFY(*fromXps == t);
        QVERIFY(trace::saveTrace(*fromXps, json).ok());
        const auto fromJson = trace::loadTrace(json);
        QVERIFY(fromJson.ok());
        QVERIFY(*fromJson == t);
        QCOMPARE(fromJson->chips[1].initial.memory.back().payload.bytes,
                 t.chips[1].initial.memory.back().payload.bytes);
    }

    void malformedJson_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("error");
        QTest::newRow("empty file") << QByteArray("")
                                    << QByteArray(
                                           "t.json:1:1: invalid JSON: syntax error while parsing value - "
                                           "unexpected end of input; expected '[', '{', or a literal");
        QTest::newRow("truncated") << QByteArray("{\n  \"format\": \"xpushark-trace\",\n  \"chips\": [")
                                   << QByteArray(
                                          "t.json:3:13: invalid JSON: syntax error while parsing value - "
                                          "unexpected end of input; expected '[', '{', or a literal");
        QTest::newRow("number overflow")
            << QByteArray("{\"format\": \"xpushark-trace\",\n \"version\": 1E999}")
            << QByteArray("t.json:2:13: invalid JSON: number overflow parsing '1E999'");
        QTest::newRow("not an object")
            << QByteArray("[1]") << QByteArray("t.json: $: expected a trace object, found an array");
        QTest::newRow("wrong format")
            << QByteArray(R"({"format": "chrome", "version": 1})")
            << QByteArray("t.json: $.format: not an xpushark trace: expected \"format\": \"xpushark-trace\"");
        QTest::newRow("newer version")
            << QByteArray(R"({"format": "xpushark-trace", "version": 7, "chips": []})")
            << QByteArray("t.json: $.version: written by a newer xpushark (trace format version 7; this "
                          "build reads versions up to 1): please update xpushark");
        QTest::newRow("missing chips") << QByteArray(R"({"format": "xpushark-trace", "version": 1})")
                                       << QByteArray("t.json: $: missing required key 'chips'");
        QTest::newRow("unknown top key")
            << QByteArray::fromStdString(minimalJson(R"({"chipz": 1})"))
            << QByteArray("t.json: $.chipz: unknown key 'chipz'; did you mean 'chips'?");
        QTest::newRow("machine key") << QByteArray::fromStdString(
                                            minimalJson(R"({"machine": {"vmem_byts": 1}})"))
                                     << QByteArray("t.json: $.machine.vmem_byts: unknown machine parameter "
                                                   "'vmem_byts'; did you mean 'vmem_bytes'?");
        QTest::newRow("more chips than machine")
            << QByteArray::fromStdString(minimalJson(R"({"machine": {"chips": 1}, "chips": [{}, {}]})"))
            << QByteArray("t.json: $.chips: has 2 chips (machine.chips); at most 1 are allowed");
        QTest::newRow("bad opcode")
            << QByteArray::fromStdString(
                   minimalJson(R"({"chips": [{"chip": 0, "program": ["smov s1, 1", "hlt"]}]})"))
            << QByteArray(
                   "t.json: $.chips[0].program[1]: column 1: unknown opcode 'hlt'; did you mean 'halt'?");
        QTest::newRow("program not strings")
            << QByteArray::fromStdString(minimalJson(R"({"chips": [{"chip": 0, "program": [42]}]})"))
            << QByteArray("t.json: $.chips[0].program[0]: expected a string, found an integer");
        QTest::newRow("chip key typo")
            << QByteArray::fromStdString(minimalJson(R"({"chips": [{"chip": 0, "progam": []}]})"))
            << QByteArray("t.json: $.chips[0].progam: unknown key 'progam'; did you mean 'program'?");
        QTest::newRow("size type")
            << QByteArray::fromStdString(minimalJson(
                   R"({"chips": [{"chip": 0, "program": [], "buffers": [{"name": "a", "space": "vmem", "address": 0, "size": "4k"}]}]})"))
            << QByteArray(
                   "t.json: $.chips[0].buffers[0].size: expected a non-negative integer, found a string");
        QTest::newRow("bad space")
            << QByteArray::fromStdString(minimalJson(
                   R"({"chips": [{"chip": 0, "program": [], "buffers": [{"name": "a", "space": "dram", "address": 0, "size": 1}]}]})"))
            << QByteArray("t.json: $.chips[0].buffers[0].space: unknown memory space 'dram': expected "
                          "\"hbm\", \"vmem\" or \"smem\"");
        QTest::newRow("memory beyond hbm")
            << QByteArray::fromStdString(minimalJson(
                   R"({"chips": [{"chip": 0, "program": [], "initial": {"memory": [{"space": "hbm", "address": 1099511627776, "size": 1}]}}]})"))
            << QByteArray("t.json: $.chips[0].initial.memory[0].address: value 1099511627776 is too large: "
                          "at most 34359738368");
        QTest::newRow("huge declared size")
            << QByteArray::fromStdString(minimalJson(
                   R"({"chips": [{"chip": 0, "program": [], "initial": {"memory": [{"space": "vmem", "address": 0, "size": 1000000000000, "base64": ""}]}}]})"))
            << QByteArray("t.json: $.chips[0].initial.memory[0].size: value 1000000000000 is too large: at "
                          "most 33554432");
        QTest::newRow("base64 length")
            << QByteArray::fromStdString(minimalJson(
                   R"({"chips": [{"chip": 0, "program": [], "initial": {"memory": [{"space": "hbm", "address": 0, "size": 16, "base64": "AAAAAAAAAAA="}]}}]})"))
            << QByteArray("t.json: $.chips[0].initial.memory[0].base64: base64 text of 12 characters cannot "
                          "hold the declared 16 bytes (expected 24 characters)");
        QTest::newRow("base64 alphabet")
            << QByteArray::fromStdString(minimalJson(
                   R"({"chips": [{"chip": 0, "program": [], "initial": {"memory": [{"space": "hbm", "address": 0, "size": 3, "base64": "A*A*"}]}}]})"))
            << QByteArray("t.json: $.chips[0].initial.memory[0].base64: invalid base64 data");
        QTest::newRow("register name")
            << QByteArray::fromStdString(minimalJson(
                   R"({"chips": [{"chip": 0, "program": [], "initial": {"sregs": {"s40": 1}}}]})"))
            << QByteArray(
                   "t.json: $.chips[0].initial.sregs.s40: 's40' is not a register name: expected s0..s31");
        QTest::newRow("flag number")
            << QByteArray::fromStdString(
                   minimalJson(R"({"chips": [{"chip": 0, "program": [], "initial": {"flags": {"64": 1}}}]})"))
            << QByteArray("t.json: $.chips[0].initial.flags.64: '64' is not a flag: expected a number from 0 "
                          "to 63 (sync_flags=64)");
        QTest::newRow("generator kind")
            << QByteArray::fromStdString(minimalJson(
                   R"({"chips": [{"chip": 0, "program": [], "initial": {"memory": [{"space": "hbm", "address": 0, "size": 16, "generator": {"kind": "gauss"}}]}}]})"))
            << QByteArray("t.json: $.chips[0].initial.memory[0].generator.kind: unknown generator 'gauss': "
                          "expected zero, const_u32, const_f32, random_f32, random_f16, random_bf16, "
                          "random_u32 or iota_s32");
        QTest::newRow("undefined region")
            << QByteArray::fromStdString(
                   minimalJson(R"({"chips": [{"chip": 0, "program": ["region.begin nope"]}]})"))
            << QByteArray("t.json: $.chips[0].program[0]: column 14: undefined region 'nope': the symbol "
                          "table declares no such region");
        QTest::newRow("overlapping buffers")
            << QByteArray::fromStdString(minimalJson(
                   R"({"chips": [{"chip": 0, "program": [], "buffers": [{"name": "a", "space": "vmem", "address": 0, "size": 4096}, {"name": "b", "space": "vmem", "address": 1024, "size": 16}]}]})"))
            << QByteArray("t.json: $.chips[0].buffers[1]: buffer 'b' overlaps 'a' in vmem; declare alias=a "
                          "if that is intended");
        QTest::newRow("output unknown")
            << QByteArray::fromStdString(
                   minimalJson(R"({"chips": [{"chip": 0, "program": [], "outputs": ["zz"]}]})"))
            << QByteArray("t.json: $.chips[0].outputs[0]: output 'zz' is not a declared buffer");
        QTest::newRow("sample pc")
            << QByteArray::fromStdString(minimalJson(R"({"recorded": {"samples": [[0, 99, 5]]}})"))
            << QByteArray("t.json: $.recorded.samples[0]: recorded sample pc 0x63 is past the program end");
        QTest::newRow("generator parameter")
            << QByteArray::fromStdString(minimalJson(R"({"generator": {"workload": "smalltile", "variant": "naive", "params": {"tile_bytes": "big"}}})"))
            << QByteArray("t.json: $.generator.params.tile_bytes: expected an integer, found a string");
        QTest::newRow("chip index")
            << QByteArray::fromStdString(minimalJson(R"({"chips": [{"chip": 3, "program": []}]})"))
            << QByteArray("t.json: $.chips[0].chip: value 3 out of range: expected 0 to 0");
        QTest::newRow("too few chips")
            << QByteArray::fromStdString(minimalJson(R"({"machine": {"chips": 2}})"))
            << QByteArray("t.json: $: the machine has 2 chip(s) but the trace has 1 program(s)");
    }
    void malformedJson()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, error);
        QCOMPARE(jsonError(text.toStdString()), error.toStdString());
    }

    void deepNestingIsRefused()
    {
        const std::string hostile = std::string(100000, '[') + std::string(100000, ']');
        QCOMPARE(jsonError(hostile), std::string("t.json: JSON nested deeper than 64 levels; a trace never "
                                                 "needs that (hostile or corrupt file?)"));
    }

    void valueCountIsBounded()
    {
        std::string many = "[";
        for (int i = 0; i < 1000; ++i)
            many += "0,";
        many += "0]";
        std::string error;
        // 1,001 numbers and the array that holds them.
        (void)trace::parseJsonText(many, "t.json", error, 64, 1001);
        QCOMPARE(
            error,
            std::string(
                "t.json: JSON has more than 1001 values; store traces this large in the .xps container"));
        (void)trace::parseJsonText(many, "t.json", error, 64, 1002);
        QCOMPARE(error, std::string());
        // Containers count too: a file of empty arrays was once unbounded (64 MB of "[]," took 1.5 GB).
        std::string empties = "[";
        for (int i = 0; i < 2000; ++i)
            empties += "[],{},";
        empties += "[]]";
        (void)trace::parseJsonText(empties, "t.json", error, 64, 1000);
        QVERIFY(error.starts_with("t.json: JSON has more than 1000 values"));
    }

    // An array of objects parses in linear time (nlohmann's callback parser was quadratic in it: 1 MB of
    // "{}," took 66 s). 400,000 objects must take well under a second.
    void arraysOfObjectsParseInLinearTime()
    {
        std::string objects = "[";
        for (int i = 0; i < 400'000; ++i)
            objects += "{},";
        objects += "{}]";
        std::string error;
        const auto start = std::chrono::steady_clock::now();
        const nlohmann::json doc = trace::parseJsonText(objects, "t.json", error, 64, 1u << 20);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QCOMPARE(error, std::string());
        QCOMPARE(doc.size(), std::size_t(400'001));
        QVERIFY2(seconds < 3.0, qPrintable(QString::number(seconds))); // ~0.05 s here; 3 s under ASan
    }

    void containerErrors()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("c.xps")).toStdString();

        test::writeFile(path, "{\"format\": \"xpushark-trace\"}");
        auto r = trace::loadTrace(path);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().primary().toString(),
                 path + ": not an xpushark container: the file does not start with the SQLite header");

        const auto withDb = [&](const char* sql) {
            std::filesystem::remove(path);
            QVERIFY(trace::saveTrace(sampleTrace(64), path).ok());
            sql::Database db;
            QVERIFY(db.open(path, false).empty());
            QCOMPARE(db.exec(sql), std::string());
        };
        withDb("PRAGMA application_id = 7");
        r = trace::loadTrace(path);
        QCOMPARE(r.error().primary().toString(),
                 path + ": not an xpushark container: SQLite application_id is 0x7, expected 0x58505348");

        withDb("PRAGMA user_version = 9");
        r = trace::loadTrace(path);
        QCOMPARE(r.error().primary().toString(),
                 path + ": written by a newer xpushark (container schema version 9; this build reads "
                        "versions up to 2): please update xpushark");

        withDb("UPDATE blob_chunks SET data = zeroblob(10)");
        r = trace::loadTrace(path);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().primary().toString(), path + ": table chips, row chip=0: $.initial.vregs.v7.blob: "
                                                        "blob 1 holds 10 bytes; the region declares 4096");

        withDb("DELETE FROM blob_chunks");
        r = trace::loadTrace(path);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message() == "blob 1 is missing from table blob_chunks" ||
                     r.error().message() == "blob 2 is missing from table blob_chunks",
                 r.error().toString().c_str());

        withDb("UPDATE chips SET document = '{\"chip\": 0, \"program\": [\"jump\"]}' WHERE chip = 0");
        r = trace::loadTrace(path);
        QCOMPARE(r.error().primary().toString(),
                 path + ": table chips, row chip=0: $.program[0]: column 1: unknown opcode 'jump'");
    }

    void truncatedContainerNeverCrashes()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("t.xps")).toStdString();
        QVERIFY(trace::saveTrace(sampleTrace(300000), path).ok());
        const std::string whole = test::readFile(path);
        for (std::size_t cut :
             {std::size_t(100), std::size_t(4096), whole.size() / 3, whole.size() / 2, whole.size() - 1000}) {
            test::writeFile(path, whole.substr(0, cut));
            const auto r = trace::loadTrace(path);
            QVERIFY2(!r.ok(), std::to_string(cut).c_str());
            QCOMPARE(r.error().location(), path);
            QVERIFY2(r.error().message().starts_with("file is truncated"), r.error().message().c_str());
        }
    }

    void interruptedSaveKeepsThePreviousFile()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("keep.xps")).toStdString();
        const trace::Trace original = sampleTrace(1000);
        QVERIFY(trace::saveTrace(original, path).ok());
        const trace::Trace bigger = sampleTrace(64u << 20);
        for (int delayMs : {0, 5, 20}) {
            const pid_t child = fork();
            if (child == 0) {
                (void)trace::saveTrace(bigger, path);
                _exit(0);
            }
            usleep(static_cast<useconds_t>(delayMs * 1000));
            kill(child, SIGKILL);
            waitpid(child, nullptr, 0);
            // Whatever the moment of the kill, the file is one complete trace, never a partial one.
            const auto loaded = trace::loadTrace(path);
            QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
            QVERIFY(*loaded == original || *loaded == bigger);
        }
    }

    void failedWriteLeavesThePreviousFileAndNoTemporary()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("kept.xtrace.json")).toStdString();
        test::writeFile(path, "previous");
        const Status failed = writeFileAtomically(path, [&](const std::string& temp) -> Status {
            test::writeFile(temp, "half of the new cont");
            return Error(path, "disk full");
        });
        QCOMPARE(failed.error().toString(), path + ": disk full");
        QCOMPARE(test::readFile(path), std::string("previous"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("kept.xtrace.json")});
        QVERIFY(writeFileAtomically(path, [](const std::string& temp) -> Status {
                    test::writeFile(temp, "new");
                    return Ok{};
                }).ok());
        QCOMPARE(test::readFile(path), std::string("new"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);
        // A writer that throws half way: rethrown, the file as it was, no temporary left.
        const auto throwing = [](const std::string& temp) -> Status {
            test::writeFile(temp, "half");
            throw std::runtime_error("stopped");
        };
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, static_cast<void>(writeFileAtomically(path, throwing)));
        QCOMPARE(test::readFile(path), std::string("new"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);
    }

    void unknownExtension()
    {
        const auto r = trace::loadTrace("trace.txt");
        QCOMPARE(r.error().primary().toString(),
                 std::string("trace.txt: unknown trace file type: expected a name ending in .xtrace.json (or "
                             ".json), .xps, .xasm or .mlir (a StableHLO module)"));
        QCOMPARE(trace::loadTrace("/nonexistent/t.xtrace.json").error().primary().toString(),
                 std::string("/nonexistent/t.xtrace.json: no such file"));
    }

    // A model loads with its floats as the type asked for (the explorer's Open model dialog, `--dtype`):
    // its buffers say bf16; an unknown type is an error naming the file and the types there are.
    void aModelLoadsAsTheTypeAskedFor()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("m.mlir")).toStdString();
        test::writeFile(path, "func.func @main(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {\n"
                              "  %0 = stablehlo.add %a, %a : tensor<8x128xf32>\n"
                              "  return %0 : tensor<8x128xf32>\n}\n");
        const auto dtypes = [](const trace::Trace& t) {
            std::set<std::string> types;
            for (const auto& b : t.chips.front().symbols.buffers)
                types.insert(b.dtype);
            return types;
        };
        auto exported = trace::loadTrace(path);
        QVERIFY2(exported, exported ? "" : exported.error().toString().c_str());
        QVERIFY(dtypes(*exported).contains("f32"));
        auto bf16 = trace::loadTrace(path, {}, {"bf16"});
        QVERIFY2(bf16, bf16 ? "" : bf16.error().toString().c_str());
        QVERIFY(dtypes(*bf16).contains("bf16") && !dtypes(*bf16).contains("f32"));
        const auto bad = trace::loadTrace(path, {}, {"int8"});
        QVERIFY(!bad);
        QCOMPARE(bad.error().primary().toString(),
                 path + ": cannot run the model as 'int8': expected bf16, f16 or f32");
    }
};

QTEST_GUILESS_MAIN(TestTraceIo)
#include "tst_trace_io.moc"
