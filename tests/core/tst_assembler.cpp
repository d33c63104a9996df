// The assembler and disassembler: every opcode round-trips, the directives build the trace a kernel
// author expects, and every malformed input names its file:line:column and what was expected.
#include "test_support.h"

#include "asm/assembler.h"
#include "asm/disassembler.h"
#include "asm/parser.h"

using namespace xps;

namespace {

// A representative instruction for every opcode: operands of each kind, keyword operands set.
isa::Instruction sampleInstruction(const isa::OpcodeInfo& op, int variant)
{
    isa::Instruction insn;
    insn.opcode = op.opcode;
    int reg = 1 + variant;
    const auto specs = op.operandSpecs();
    for (std::size_t i = 0; i < specs.size(); ++i) {
        isa::Operand& o = insn.operands[i];
        switch (specs[i].kind) {
        case isa::OperandKind::SReg: o = isa::Operand::sreg(reg++ % 32); break;
        case isa::OperandKind::VReg: o = isa::Operand::vreg((reg++ * 3) % 32); break;
        case isa::OperandKind::SRegOrImm:
            o = variant == 0 ? isa::Operand::sreg(reg++ % 32)
                             : isa::Operand::imm(specs[i].name == "chip" ? 1 : 3 + variant);
            break;
        case isa::OperandKind::Imm: o = isa::Operand::imm(specs[i].name == "engine" ? 2 : 4096); break;
        case isa::OperandKind::Label: o = isa::Operand::imm(variant == 0 ? 0 : 1); break;
        case isa::OperandKind::Addr:
            o = isa::Operand::mem(op.memorySpace, variant == 0 ? 7 : -1, variant == 0 ? -512 : 1024);
            break;
        case isa::OperandKind::SpaceAddr:
            o = isa::Operand::mem(i == 0 ? isa::Space::Vmem : isa::Space::Hbm, variant == 0 ? 9 : -1, 0x2000);
            break;
        case isa::OperandKind::Region: o = isa::Operand::imm(variant); break;
        }
    }
    return insn;
}

trace::SymbolTable sampleSymbols()
{
    trace::SymbolTable symbols;
    symbols.labels = {{"start", 0}};
    symbols.regions = {{"attention", "op"}, {"mlp up", "op"}};
    return symbols;
}

std::string firstDiagnostic(std::string_view source)
{
    const auto result = assembly::assemble(source, "k.xasm");
    if (result.ok())
        return "<assembled without error>";
    return result.error().primary().toString();
}

} // namespace

class TestAssembler : public QObject
{
    Q_OBJECT
private slots:
    void regionsDeclaredBeforeTheFirstChipKeepTheirLevelInEverySection()
    {
        // A timeline names its region lanes by level: every chip's symbols must carry it.
        const auto t =
            assembly::assemble(".machine chips=2\n.region step, level=loop\n.chip 0\n    region.begin step\n"
                               "    region.end\n    halt\n.chip 1\n    region.begin step\n    region.end\n"
                               "    halt\n",
                               "levels.xasm");
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().toString().c_str());
        for (const auto& chip : t->chips) {
            QCOMPARE(chip.symbols.regions.size(), std::size_t{1});
            QCOMPARE(chip.symbols.regions[0].level, std::string("loop"));
        }
    }

    void everyOpcodeRoundTrips()
    {
        const trace::SymbolTable symbols = sampleSymbols();
        std::vector<trace::RegionSymbol> regions = symbols.regions;
        assembly::Scope scope;
        scope.labels = {{"start", 0}};
        scope.regions = &regions;
        scope.declareRegions = false;
        for (const isa::OpcodeInfo& op : isa::allOpcodes()) {
            for (int variant = 0; variant < 2; ++variant) {
                const isa::Instruction insn = sampleInstruction(op, variant);
                const std::string text = assembly::disassembleInstruction(insn, symbols);
                const auto parsed = assembly::parseBundleLine(
                    text, scope, [](std::size_t c) { return "col " + std::to_string(c); });
                QVERIFY2(parsed.ok(),
                         (text + " -> " + (parsed.ok() ? "" : parsed.error().toString())).c_str());
                QCOMPARE(parsed->instructions.size(), std::size_t(1));
                QVERIFY2(parsed->instructions[0] == insn, text.c_str());
            }
        }
    }

    void fullBundleRoundTrips()
    {
        const char* line = "sadd s1, s1, 1 ; smul s2, s3, -7 ; vadd.f32 v1, v2, v3 ; vexp.f32 v4, v5 ; vld "
                           "v6, [s4 + 0x200] ; "
                           "vst v7, [0x400] ; mxu.mm v8 ; mxu.pop v9 ; xlu.rsum.f32 v10, v11 ; "
                           "dma.start vmem[s5], hbm[0x1000], 4096, 3, engine=1, chunk=1024";
        assembly::Scope scope;
        const auto bundle = assembly::parseBundleLine(line, scope, [](std::size_t) { return std::string(); });
        QVERIFY2(bundle.ok(), bundle.ok() ? "" : bundle.error().toString().c_str());
        QCOMPARE(bundle->instructions.size(), std::size_t(10));
        const std::string text = assembly::disassembleBundle(*bundle, {});
        const auto again = assembly::parseBundleLine(text, scope, [](std::size_t) { return std::string(); });
        QVERIFY(again.ok());
        QVERIFY(*again == *bundle);
    }

    void floatImmediatesBecomeF32Bits()
    {
        assembly::Scope scope;
        const auto b = assembly::parseBundleLine("vbcast v1, 1.5 ; vbcast v2, -2.0", scope,
                                                 [](std::size_t) { return std::string(); });
        QVERIFY(b.ok());
        QCOMPARE(b->instructions[0].operands[1].value, std::int64_t(0x3fc00000));
        QCOMPARE(static_cast<std::uint32_t>(b->instructions[1].operands[1].value), 0xc0000000u);
    }

    void directivesBuildTheTrace()
    {
        const char* source = R"(
.name "two chips"
.machine chips=2, vmem_bytes=1048576
.const TILE = 8 * 512
.hbm  src, 0x0, 4 * TILE, dtype=f32, shape=[32, 128]
.chip 0-1
.vmem buf, 0x1000, TILE
.vmem view, 0x1000, 512, alias=buf
.region layer0, level=layer
.region attn, level=op
.init src, random_f32, seed=7, lo=-2.0, hi=2.0
.init v3, const_f32, 0.5
.sreg s1, 42
.flag 5, 1
.output buf
.loc "model.py", 120
start:
    region.begin layer0
    { dma.start vmem[buf], hbm[src + TILE], TILE, 5
      schip s2 }
    sync.wait 5, 2 ; sadd s1, s1, 1
    region.begin attn
    region.end
    region.end
    halt
)";
        const auto t = assembly::assemble(source, "two.xasm");
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().toString().c_str());
        QCOMPARE(t->name, std::string("two chips"));
        QCOMPARE(t->machine.vmemBytes, std::int64_t(1 << 20));
        QCOMPARE(t->chips.size(), std::size_t(2));
        const trace::ChipTrace& c = t->chips[1];
        QCOMPARE(c.chip, ChipId(1));
        QCOMPARE(c.program.bundles.size(), std::size_t(7));
        QCOMPARE(c.program.bundles[1].instructions.size(), std::size_t(2));        // braced bundle
        QCOMPARE(c.program.bundles[1].instructions[0].opcode, isa::Opcode::SChip); // slot order: scalar first
        const isa::Instruction& dma = c.program.bundles[1].instructions[1];
        QCOMPARE(dma.operands[0].value, std::int64_t(0x1000));
        QCOMPARE(dma.operands[1].value, std::int64_t(4096));
        QCOMPARE(c.symbols.buffers.size(), std::size_t(3));
        QCOMPARE(c.symbols.buffers[0].shape, (std::vector<std::int64_t>{32, 128}));
        QCOMPARE(c.symbols.regions[1].level, std::string("op"));
        QCOMPARE(c.symbols.labels.front().name, std::string("start"));
        QCOMPARE(c.symbols.sourceLines.front().line, 120u);
        QCOMPARE(c.initial.scalarRegisters.at(1), 42u);
        QCOMPARE(c.initial.flags.at(5), 1u);
        QCOMPARE(c.initial.memory.front().payload.generator.seed, std::uint64_t(7));
        QVERIFY(c.initial.vectorRegisters.at(3).isGenerator);
        QCOMPARE(c.outputs, std::vector<std::string>{"buf"});

        // The disassembly re-assembles to the same trace.
        const std::string text = assembly::disassembleTrace(*t);
        const auto again = assembly::assemble(text, "again.xasm");
        QVERIFY2(again.ok(), again.ok() ? "" : (again.error().toString() + "\n" + text).c_str());
        QVERIFY(*again == *t);
    }

    void sampleTracesAssemble()
    {
        for (const char* name : {"vector_add.xasm"}) {
            const std::string path = test::sourceDir() + "/resources/samples/" + name;
            const auto t = assembly::assemble(test::readFile(path), path);
            QVERIFY2(t.ok(), t.ok() ? name : t.error().toString().c_str());
            QVERIFY(!t->chips.front().program.bundles.empty());
        }
    }

    void reportsSeveralErrorsAtOnce()
    {
        const auto r = assembly::assemble("hlt\nsadd s1, s1\nvmov v1, v99\n", "k.xasm");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().diagnostics().size(), std::size_t(3));
        QCOMPARE(r.error().diagnostics()[2].location, std::string("k.xasm:3:10"));
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<QByteArray>("error");
        QTest::newRow("unknown opcode")
            << QByteArray("vadd.f3 v1, v2, v3")
            << QByteArray("k.xasm:1:1: unknown opcode 'vadd.f3'; did you mean 'vadd.f32'?");
        QTest::newRow("register range")
            << QByteArray("sadd s32, s1, 1")
            << QByteArray("k.xasm:1:6: register 's32' out of range: expected a scalar register (s0..s31)");
        QTest::newRow("register file")
            << QByteArray("vadd.f32 v1, s2, v3")
            << QByteArray("k.xasm:1:14: expected a vector register (v0..v31), found 's2'");
        QTest::newRow("vector for scalar") << QByteArray("sadd s1, s2, v3")
                                           << QByteArray("k.xasm:1:14: expected a scalar register or an "
                                                         "immediate for 'src', found vector register 'v3'");
        QTest::newRow("immediate width")
            << QByteArray("smov s1, 0x100000000")
            << QByteArray("k.xasm:1:10: immediate 4294967296 for 'src' does not fit in 32 bits");
        QTest::newRow("address offset width")
            << QByteArray("vld v1, [s1 + 0x4000000000]")
            << QByteArray("k.xasm:1:10: address offset 274877906944 is out of range: an operand holds "
                          "-274877906944 to 274877906943");
        QTest::newRow("immediate operand width")
            << QByteArray("mxu.pop v1, mxu=-274877906945")
            << QByteArray("k.xasm:1:17: immediate -274877906945 is out of range: an operand holds "
                          "-274877906944 to 274877906943");
        QTest::newRow("missing operand")
            << QByteArray("vadd.f32 v1, v2")
            << QByteArray(
                   "k.xasm:1:16: expected ',' and operand 'vb' (a vector register (v0..v31)) of vadd.f32");
        QTest::newRow("extra operand") << QByteArray("vmov v1, v2, v3")
                                       << QByteArray("k.xasm:1:14: vmov takes 2 operands, found extra 'v3'");
        QTest::newRow("slot conflict")
            << QByteArray("vld v1, [0] ; vld v2, [512]")
            << QByteArray(
                   "k.xasm:1:15: slot conflict: vld needs a vector load slot, and the bundle's 1 is taken");
        QTest::newRow("three scalar ops")
            << QByteArray("sadd s1, s1, 1 ; sadd s2, s2, 1 ; sadd s3, s3, 1")
            << QByteArray(
                   "k.xasm:1:35: slot conflict: sadd needs a scalar slot, and the bundle's 2 are taken");
        QTest::newRow("two branches") << QByteArray("l: brz s1, l ; brnz s2, l")
                                      << QByteArray("k.xasm:1:16: a bundle may hold at most one branch");
        QTest::newRow("undefined label")
            << QByteArray("loop: nop\nbr lop")
            << QByteArray("k.xasm:2:4: undefined label 'lop'; did you mean 'loop'?");
        QTest::newRow("duplicate label")
            << QByteArray("a: nop\na: halt") << QByteArray("k.xasm:2:1: label 'a' defined twice");
        QTest::newRow("undefined symbol")
            << QByteArray(".const TILE = 4096\nsmov s1, TILES")
            << QByteArray("k.xasm:2:10: undefined symbol 'TILES'; did you mean 'TILE'?");
        QTest::newRow("division by zero")
            << QByteArray(".const X = 4 / 0") << QByteArray("k.xasm:1:14: division by zero in expression");
        QTest::newRow("buffer out of vmem")
            << QByteArray("nop\n.vmem big, 0x1fff000, 0x2000")
            << QByteArray("k.xasm:2:1: buffer 'big' [0x1fff000, 0x2001000) is out of vmem bounds: vmem has "
                          "32 MiB (0x2000000)");
        QTest::newRow("overlap")
            << QByteArray(".vmem a, 0, 4096\n.vmem b, 2048, 4096\nhalt")
            << QByteArray("k.xasm:2:1: buffer 'b' overlaps 'a' in vmem; declare alias=a if that is intended");
        QTest::newRow("static vld out of bounds")
            << QByteArray("vld v1, [0x2000000]")
            << QByteArray("k.xasm:1:1: vld addr [0x2000000, 0x2001000) is out of vmem bounds: vmem has 32 "
                          "MiB (0x2000000)");
        QTest::newRow("dma engine")
            << QByteArray("dma.start vmem[0], hbm[0], 64, 0, engine=9")
            << QByteArray("k.xasm:1:1: dma.start engine 9 does not exist: the machine has dma_engines=4");
        QTest::newRow("mxu index")
            << QByteArray("mxu.mm v1, mxu=1")
            << QByteArray("k.xasm:1:1: mxu.mm mxu 1 does not exist: the machine has mxu_count=1");
        QTest::newRow("dma route")
            << QByteArray("dma.start vmem[0], hbm[0], 64, 0, route=2")
            << QByteArray(
                   "k.xasm:1:1: dma.start route must be 0 (shortest) or 1 (the long way round), got 2");
        QTest::newRow("keyword typo")
            << QByteArray("dma.start vmem[0], hbm[0], 64, 0, engin=1")
            << QByteArray(
                   "k.xasm:1:35: unknown keyword operand 'engin' for dma.start; did you mean 'engine'?");
        QTest::newRow("keyword twice") << QByteArray("dma.start vmem[0], hbm[0], 64, 0, engine=1, engine=2")
                                       << QByteArray("k.xasm:1:45: keyword operand 'engine' given twice");
        QTest::newRow("bad space") << QByteArray("dma.start vram[0], hbm[0], 64, 0")
                                   << QByteArray("k.xasm:1:11: expected a memory operand hbm[...], vmem[...] "
                                                 "or smem[...] for 'dst', found 'vram'");
        QTest::newRow("flag range")
            << QByteArray("sync.wait 99, 1")
            << QByteArray("k.xasm:1:1: sync.wait flag 99 does not exist: the machine has sync_flags=64");
        QTest::newRow("unknown directive")
            << QByteArray(".vmen a, 0, 16")
            << QByteArray("k.xasm:1:1: unknown directive '.vmen'; did you mean '.vmem'?");
        QTest::newRow("machine key")
            << QByteArray(".machine vmem_byte=1024")
            << QByteArray("k.xasm:1:10: unknown machine parameter 'vmem_byte'; did you mean 'vmem_bytes'?");
        QTest::newRow("machine range")
            << QByteArray(".machine chips=0")
            << QByteArray("k.xasm:1:10: chips: expected a number from 1 to 4096 (chips)");
        QTest::newRow("unterminated string")
            << QByteArray(".name \"abc")
            << QByteArray("k.xasm:1:7: unterminated string: expected a closing '\"'");
        QTest::newRow("bad character")
            << QByteArray("sadd s1, s1, $3") << QByteArray("k.xasm:1:14: unexpected character '$'");
        QTest::newRow("malformed number")
            << QByteArray("smov s1, 12abc") << QByteArray("k.xasm:1:10: malformed number '12abc'");
        QTest::newRow("unclosed brace") << QByteArray("nop\n{ sadd s1, s1, 1\nhalt")
                                        << QByteArray("k.xasm:2:1: '{' is never closed: expected '}'");
        QTest::newRow("chip beyond machine")
            << QByteArray(".chip 3\nhalt")
            << QByteArray(
                   "k.xasm:1:1: chip 3 does not exist: the machine has 1 (set it with `.machine chips=N`)");
        QTest::newRow("chip without program")
            << QByteArray(".machine chips=2\n.chip 0\nhalt")
            << QByteArray("k.xasm: chip 1 has no program: add it to a .chip section");
        QTest::newRow("code outside section") << QByteArray(".chip 0\nhalt\n.chip 0\nhalt")
                                              << QByteArray("k.xasm:3:1: chip 0 is in two .chip sections");
        QTest::newRow("output unknown")
            << QByteArray(".output nothing\nhalt")
            << QByteArray("k.xasm:1:9: output 'nothing' is not a declared buffer");
        QTest::newRow("register as name")
            << QByteArray(".vmem v1, 0, 4096")
            << QByteArray("k.xasm:1:7: 'v1' is a register name and cannot name a symbol");
        QTest::newRow("generator typo")
            << QByteArray(".hbm a, 0, 64\n.init a, random_f23, seed=1")
            << QByteArray("k.xasm:2:10: unknown generator 'random_f23'; did you mean 'random_f32'?");
        QTest::newRow("float in expression") << QByteArray("smov s1, 2 * 1.5")
                                             << QByteArray("k.xasm:1:14: a floating-point literal must be a "
                                                           "whole operand, not part of an expression");
        QTest::newRow("branch past end")
            << QByteArray("br 0x40\nhalt")
            << QByteArray("k.xasm:1:1: br target 0x40 is past the program end (2 bundles)");
        QTest::newRow("machine after chip")
            << QByteArray(".chip 0\n.machine chips=2\nhalt")
            << QByteArray("k.xasm:2:1: .machine must come before the first .chip section");
    }
    void malformed()
    {
        QFETCH(QByteArray, source);
        QFETCH(QByteArray, error);
        QCOMPARE(firstDiagnostic(source.toStdString()), error.toStdString());
    }
};

QTEST_GUILESS_MAIN(TestAssembler)
#include "tst_assembler.moc"
