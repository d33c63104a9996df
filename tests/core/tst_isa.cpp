// The opcode table and the machine configuration: invariants the assembler and GRM rely on, JSON
// parameters with precise errors, and docs/isa.md kept equal to the generated reference tables.
#include "test_support.h"

#include "isa/isa.h"
#include "isa/isa_reference.h"
#include "isa/machine_config.h"

#include <nlohmann/json.hpp>
#include <set>

using namespace xps;

class TestIsa : public QObject
{
    Q_OBJECT
private slots:
    void everyOpcodeHasOneUniqueMnemonic()
    {
        std::set<std::string_view> names;
        for (const isa::OpcodeInfo& op : isa::allOpcodes()) {
            QVERIFY2(names.insert(op.mnemonic).second, std::string(op.mnemonic).c_str());
            QCOMPARE(isa::opcodeFromMnemonic(op.mnemonic), std::optional<isa::Opcode>(op.opcode));
            QVERIFY(!op.semantics.empty());
        }
        QCOMPARE(static_cast<int>(names.size()), isa::kOpcodeCount);
        QVERIFY(!isa::opcodeFromMnemonic("vadd"));
    }

    void latencyParametersExistInTheMachineConfig()
    {
        std::set<std::string_view> keys;
        for (const auto& p : isa::configParams())
            keys.insert(p.key);
        for (const isa::OpcodeInfo& op : isa::allOpcodes()) {
            if (!op.latencyParam.empty())
                QVERIFY2(keys.contains(op.latencyParam), std::string(op.latencyParam).c_str());
            if (!op.occupancyParam.empty())
                QVERIFY2(keys.contains(op.occupancyParam), std::string(op.occupancyParam).c_str());
        }
    }

    void keywordOperandsFollowPositionalOnes()
    {
        for (const isa::OpcodeInfo& op : isa::allOpcodes()) {
            bool seenKeyword = false;
            for (const isa::OperandSpec& o : op.operandSpecs()) {
                QVERIFY2(!(seenKeyword && !o.keyword), std::string(op.mnemonic).c_str());
                seenKeyword = seenKeyword || o.keyword;
            }
        }
    }

    void slotCountsMatchTheBrief()
    {
        QCOMPARE(isa::slotCount(isa::SlotKind::Scalar), 2);
        QCOMPARE(isa::slotCount(isa::SlotKind::Vector), 2);
        QCOMPARE(isa::slotCount(isa::SlotKind::Misc), 1);
        QCOMPARE(isa::kVectorBytes, 4096);
    }

    void defaultsDeriveFromTpuV4()
    {
        const isa::MachineConfig c;
        // 1200 GB/s at 1.05 GHz is about 1143 bytes per cycle.
        QVERIFY(std::abs(c.bytesPerCycle(c.hbmBandwidthGBs) - 1142.857) < 0.01);
        // 275 TFLOP/s per chip = 8 MXUs of 128 x 128 MACs at the default clock.
        QVERIFY(std::abs(8.0 * 128 * 128 * 2 * c.clockMhz * 1e6 / 1e12 - 275.25) < 0.01);
    }

    void configJson_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QByteArray>("error");
        QTest::newRow("unknown key")
            << QByteArray(R"({"vmem_byts": 4096})")
            << QByteArray(
                   "$.machine.vmem_byts: unknown machine parameter 'vmem_byts'; did you mean 'vmem_bytes'?");
        QTest::newRow("string for number")
            << QByteArray(R"({"chips": "four"})") << QByteArray("$.machine.chips: expected a number");
        QTest::newRow("fraction for integer")
            << QByteArray(R"({"chips": 2.5})") << QByteArray("$.machine.chips: expected a whole number");
        QTest::newRow("below range")
            << QByteArray(R"({"dma_engines": 0})")
            << QByteArray("$.machine.dma_engines: expected a number from 1 to 256 (engines)");
        QTest::newRow("bad topology") << QByteArray(R"({"topology": "mesh"})")
                                      << QByteArray("$.machine.topology: expected \"ring\" or \"torus2d\"");
        QTest::newRow("torus shape") << QByteArray(R"({"topology": "torus2d", "chips": 6, "torus_width": 4})")
                                     << QByteArray(
                                            "$.machine: chips (6) must be a multiple of torus_width (4)");
        QTest::newRow("alignment") << QByteArray(R"({"vmem_alignment": 384})")
                                   << QByteArray("$.machine: vmem_alignment must be a power of two");
        QTest::newRow("not an object")
            << QByteArray(R"([1, 2])") << QByteArray("$.machine: expected an object of machine parameters");
    }
    void configJson()
    {
        QFETCH(QByteArray, json);
        QFETCH(QByteArray, error);
        const auto config =
            isa::machineConfigFromJson(nlohmann::json::parse(json.toStdString()), "m.json", "$.machine");
        QVERIFY(!config.ok());
        QCOMPARE(config.error().location(), std::string("m.json"));
        QCOMPARE(config.error().message(), error.toStdString());
    }

    void configRoundTripAndOverrides()
    {
        isa::MachineConfig c;
        QVERIFY(isa::setMachineParam(c, "chips", "4").ok());
        QVERIFY(isa::setMachineParam(c, "topology", "torus2d").ok());
        QVERIFY(isa::setMachineParam(c, "hbm_bandwidth_gbs", "819").ok());
        QVERIFY(isa::setMachineParam(c, "dma_engines", "4").ok()); // the default: not an override
        const auto back = isa::machineConfigFromJson(isa::machineConfigToJson(c), "", "$");
        QVERIFY(back.ok());
        QVERIFY(*back == c);
        QCOMPARE(back->overridden, (std::set<std::string>{"chips", "hbm_bandwidth_gbs", "topology"}));
        QCOMPARE(isa::machineParamText(*back, "hbm_bandwidth_gbs"), std::string("819"));
    }

    void docsEmbedTheGeneratedTables()
    {
        const std::string doc = test::readFile(test::sourceDir() + "/docs/isa.md");
        QVERIFY2(!doc.empty(), "docs/isa.md is missing");
        const auto section = [&](const char* begin, const char* end) {
            const std::size_t from = doc.find(begin);
            const std::size_t to = doc.find(end);
            if (from == std::string::npos || to == std::string::npos)
                return std::string("<markers missing>");
            const std::size_t start = from + std::strlen(begin) + 1;
            return doc.substr(start, to - start);
        };
        QVERIFY2(section(isa::kOpcodeTableBegin, isa::kOpcodeTableEnd) == isa::opcodeReferenceMarkdown(),
                 "docs/isa.md opcode table is stale: regenerate with `xpushark-cli isa --opcodes`");
        QVERIFY2(section(isa::kConfigTableBegin, isa::kConfigTableEnd) ==
                     isa::machineConfigReferenceMarkdown(),
                 "docs/isa.md config table is stale: regenerate with `xpushark-cli isa --config`");
    }
};

QTEST_GUILESS_MAIN(TestIsa)
#include "tst_isa.moc"
