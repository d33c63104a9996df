// The MXU's timing in the GRM: its pipeline and result FIFO, a full FIFO with a pop in the same bundle, and
// several MXUs (mxu_count) working side by side, each with its own weights, FIFO and busy paths, and packed
// f16/bf16 operands (fmt=): 16 rows a register, the same products as their values widened to f32.
#include "sim/sim_support.h"

#include "analysis/summary.h"
#include "analysis/unit_intervals.h"
#include "asm/disassembler.h"

#include <algorithm>
#include <cstring>

using namespace xps;
using test::atPc;
using test::bundles;

class TestGrmMxu : public QObject
{
    Q_OBJECT

private slots:
    void mxuPipelineAndFifo()
    {
        std::string source = ".init v1, const_f32, 1.0\n";
        for (int i = 0; i < 16; ++i)
            source += "mxu.wpush v1\n";
        source += "mxu.wcommit\nmxu.mm v1\nmxu.pop v2\nhalt\n";
        auto r = test::replaySource(source);
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto b = bundles(*r);
        const auto* mm = atPc(b, 17);
        const auto* pop = atPc(b, 18);
        QCOMPARE(pop->cycle, mm->cycle + 136); // lat_mxu_matmul
        QCOMPARE(pop->reason, events::StallReason::ResultFifoEmpty);
        QCOMPARE(pop->cause, 17u); // the mxu.mm's bundle sequence number
        // Pushes occupy the weight path for 8 cycles each.
        QCOMPARE(atPc(b, 1)->cycle, std::uint64_t(8));
        QCOMPARE(atPc(b, 1)->reason, events::StallReason::MxuBusy);
        // The weight path was busy back to back for the 16 pushes, then the LHS stream for the product.
        const auto snapshot = r->store.bundles();
        const auto pushes =
            analysis::unitIntervals(r->trace, snapshot, 0, snapshot.size(), ChipId(0), isa::Unit::MxuWeights);
        QCOMPARE(pushes.size(), std::size_t(17)); // 16 pushes and the commit
        for (std::size_t i = 0; i < 16; ++i) {
            QCOMPARE(pushes[i].start, std::uint64_t(8 * i));
            QCOMPARE(pushes[i].end, std::uint64_t(8 * i + 8));
        }
        const auto stream =
            analysis::unitIntervals(r->trace, snapshot, 0, snapshot.size(), ChipId(0), isa::Unit::MxuMatmul);
        QCOMPARE(stream.size(), std::size_t(1));
        QCOMPARE(stream[0].end - stream[0].start, std::uint64_t(8));
        QCOMPARE(stream[0].start, mm->cycle);
        // Every element of the product is the dot product of 128 ones.
        std::vector<float> out(1024);
        std::memcpy(out.data(), r->result.finalState[0].v[2].data(), 4096);
        QCOMPARE(out[0], 128.0f);
        QCOMPARE(out[1023], 128.0f);
    }

    void severalMxusWorkInParallel()
    {
        // Two MXUs: weights of ones on MXU 0, twos on MXU 1, pushed alternately through the one push slot.
        std::string source = ".machine mxu_count=2\n.init v1, const_f32, 1.0\n.init v3, const_f32, 2.0\n";
        for (int i = 0; i < 16; ++i)
            source += "mxu.wpush v1\nmxu.wpush v3, mxu=1\n";
        source += "mxu.wcommit\nmxu.wcommit mxu=1\nmxu.mm v1\nmxu.mm v1, mxu=1\n";
        // Each FIFO is its own: MXU 1's product is popped first.
        source += "mxu.pop v5, mxu=1\nmxu.pop v4\nhalt\n";
        auto r = test::replaySource(source);
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto b = bundles(*r);
        // Each weight path is busy 8 cycles a push, on its own: MXU 1's first push does not wait for
        // MXU 0's, and the 32 pushes take as long as 16 on one MXU (push p of MXU m at 8p + m).
        QCOMPARE(atPc(b, 1)->cycle, std::uint64_t(1));
        QCOMPARE(atPc(b, 2)->cycle, std::uint64_t(8));
        QCOMPARE(atPc(b, 2)->reason, events::StallReason::MxuBusy);
        QCOMPARE(atPc(b, 31)->cycle, std::uint64_t(8 * 15 + 1));
        // The two matmuls stream side by side: the second issues the cycle after the first.
        QCOMPARE(atPc(b, 35)->cycle, atPc(b, 34)->cycle + 1);
        QCOMPARE(atPc(b, 36)->cycle, atPc(b, 35)->cycle + 136); // MXU 1's product, lat_mxu_matmul
        std::vector<float> ones(1024), twos(1024);
        std::memcpy(ones.data(), r->result.finalState[0].v[4].data(), 4096);
        std::memcpy(twos.data(), r->result.finalState[0].v[5].data(), 4096);
        QCOMPARE(ones[7], 128.0f);
        QCOMPARE(twos[7], 256.0f);
        // Utilization is of both MXUs: two 8-cycle streams over the run, out of twice its cycles.
        const auto summary = analysis::summarize(
            analysis::ReplayView{r->trace, r->store, r->result.totalCycles, r->result.chips});
        QCOMPARE(summary.chips[0].mxuUtilization, 16.0 / (2.0 * static_cast<double>(r->result.totalCycles)));
        // A pop of an MXU that was given nothing to multiply is a fault, whatever the other MXU holds.
        std::string wrong = ".machine mxu_count=2\n.init v1, const_f32, 1.0\n";
        for (int i = 0; i < 16; ++i)
            wrong += "mxu.wpush v1\n";
        auto empty = test::replaySource(wrong + "mxu.wcommit\nmxu.mm v1\nmxu.pop v2, mxu=1\nhalt\n");
        QCOMPARE(empty->result.status, sim::ReplayResult::Status::Faulted);
        QVERIFY2(
            test::faultText(*empty).ends_with("mxu.pop with an empty result FIFO and no mxu.mm in flight"),
            test::faultText(*empty).c_str());
    }

    void resultFifoFullWithAPopInTheSameBundle()
    {
        std::string weights = ".machine mxu_result_fifo_depth=2\n.init v1, const_f32, 1.0\n";
        for (int i = 0; i < 16; ++i)
            weights += "mxu.wpush v1\n";
        weights += "mxu.wcommit\nmxu.mm v1\nmxu.mm v1\n";
        // Steady state: the FIFO is full, and the bundle's own pop makes room for its product.
        auto r = test::replaySource(weights + "mxu.mm v1 ; mxu.pop v2\nmxu.pop v3\nmxu.pop v4\nhalt\n");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto b = bundles(*r);
        QCOMPARE(atPc(b, 19)->cycle, atPc(b, 17)->cycle + 136); // waits for the first product only
        QCOMPARE(atPc(b, 19)->reason, events::StallReason::ResultFifoEmpty);
        std::vector<float> v4(1024);
        std::memcpy(v4.data(), r->result.finalState[0].v[4].data(), 4096);
        QCOMPARE(v4[5], 128.0f);
        // Without a pop in the bundle, a full FIFO can never drain: the replay says so.
        auto stuck = test::replaySource(weights + "mxu.mm v1\nmxu.pop v2\nhalt\n");
        QCOMPARE(stuck->result.status, sim::ReplayResult::Status::Faulted);
        QVERIFY2(
            test::faultText(*stuck).ends_with("deadlock: every running chip waits on something nothing in "
                                              "flight can change; chip 0 at pc 0x13 result FIFO full"),
            test::faultText(*stuck).c_str());
    }

    // Packed bf16 (or f16) operands multiply exactly their widened values: the same weights and rows, once
    // packed on MXU 0 and once widened to f32 by the DMA on MXU 1, give the same bits. The weights are the
    // second 128 columns of a 128 x 256 matrix, so vld.sh picks 16 half rows 512 B apart.
    void packedOperandsAreTheirWidenedValues_data()
    {
        QTest::addColumn<int>("format");
        QTest::newRow("bf16") << 2;
        QTest::newRow("f16") << 1;
    }
    void packedOperandsAreTheirWidenedValues()
    {
        QFETCH(int, format);
        const std::string type = format == 2 ? "bf16" : "f16", fmt = ", fmt=" + std::to_string(format);
        std::string source = ".machine mxu_count=2, mxu_" + type + "=1\n" +
                             ".hbm w, 0, 65536\n.hbm x, 65536, 4096\n"
                             ".init w, random_" +
                             type + ", seed=3\n.init x, random_" + type +
                             ", seed=4\n"
                             // packed at VMEM 0 and 65536; widened at 131072 and 262144
                             "dma.start vmem[0], hbm[0], 65536, 0, chunk=65536\n"
                             "dma.start vmem[65536], hbm[65536], 4096, 0\n"
                             "dma.start vmem[131072], hbm[0], 65536, 1, chunk=65536, cvt=" +
                             std::to_string(format) +
                             "\n"
                             "dma.start vmem[262144], hbm[65536], 4096, 1, cvt=" +
                             std::to_string(format) +
                             "\n"
                             "sync.wait 0, 2\nsync.wait 1, 2\n";
        for (int i = 0; i < 8; ++i) // 16 rows of 256 B, each from a row of 512 B
            source += "vld.sh v1, [" + std::to_string(256 + i * 16 * 512) +
                      "], 512\n"
                      "mxu.wpush v1" +
                      fmt + "\n";
        for (int i = 0; i < 16; ++i) // 8 rows of 512 B, each from a row of 1 KiB
            source += "vld.s v1, [" + std::to_string(131072 + 512 + i * 8 * 1024) +
                      "], 1024\n"
                      "mxu.wpush v1, mxu=1\n";
        source += "mxu.wcommit\nmxu.wcommit mxu=1\nvld v2, [65536]\nvld v3, [262144]\n"
                  "vld v4, [266240]\nmxu.mm v2" +
                  fmt +
                  "\n"
                  "mxu.mm v3, mxu=1\nmxu.mm v4, mxu=1\n"
                  "mxu.pop v5\nmxu.pop v6\nmxu.pop v7, mxu=1\nmxu.pop v8, mxu=1\nhalt\n";
        auto r = test::replaySource(source);
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto& v = r->result.finalState[0].v;
        QVERIFY(v[5] == v[7]); // rows 0..7
        QVERIFY(v[6] == v[8]); // rows 8..15
        QVERIFY(v[5] != v[6]);
        // 16 rows stream for 16 cycles, and the second 8 leave the array 8 cycles after the first.
        const auto b = bundles(*r);
        const auto pc = [&](std::string_view text) {
            return static_cast<std::uint32_t>(std::distance(
                r->trace.chips[0].program.bundles.begin(),
                std::find_if(r->trace.chips[0].program.bundles.begin(),
                             r->trace.chips[0].program.bundles.end(), [&](const isa::Bundle& bundle) {
                                 return assembly::disassembleBundle(bundle, r->trace.chips[0].symbols) ==
                                        text;
                             })));
        };
        const std::uint64_t mm = atPc(b, pc("mxu.mm v2" + fmt))->cycle;
        QCOMPARE(atPc(b, pc("mxu.pop v5"))->cycle, mm + 136);
        QCOMPARE(atPc(b, pc("mxu.pop v6"))->cycle, mm + 136 + 8);
        const auto snapshot = r->store.bundles();
        const auto stream =
            analysis::unitIntervals(r->trace, snapshot, 0, snapshot.size(), ChipId(0), isa::Unit::MxuMatmul);
        QCOMPARE(stream.front().end - stream.front().start, std::uint64_t(16));
        // 8 packed weight pushes, each one weight-path occupancy (the same bytes as 8 rows of f32).
        const auto pushes =
            analysis::unitIntervals(r->trace, snapshot, 0, snapshot.size(), ChipId(0), isa::Unit::MxuWeights);
        QCOMPARE(pushes.size(), std::size_t(8 + 16 + 2));
    }

    void packedFormatsTheMachineDoesNotTakeAreRefused()
    {
        const auto error = [](const std::string& source) {
            auto t = assembly::assemble(source, "packed.xasm");
            return t.ok() ? std::string("<assembled>") : t.error().toString();
        };
        const std::string program = ".init v1, const_f32, 1.0\nmxu.mm v1, fmt=2\nhalt\n";
        QVERIFY2(error(program).find("mxu.mm fmt 2 (packed bf16): the machine's MXU does not take bf16 "
                                     "operands (mxu_bf16=0)") != std::string::npos,
                 error(program).c_str());
        QVERIFY2(error(".machine mxu_f16=1\nmxu.wpush v1, fmt=3\nhalt\n")
                         .find("mxu.wpush fmt must be 0 (f32), 1 (packed f16) or 2 (packed bf16), got 3") !=
                     std::string::npos,
                 error(".machine mxu_f16=1\nmxu.wpush v1, fmt=3\nhalt\n").c_str());
        // Two results need two FIFO entries: with one, the matmul could never issue.
        const std::string oneEntry = ".machine mxu_bf16=1, mxu_result_fifo_depth=1\n" + program;
        QVERIFY2(error(oneEntry).find("two results, and the result FIFO holds one") != std::string::npos,
                 error(oneEntry).c_str());
        QCOMPARE(error(".machine mxu_bf16=1\n" + program), std::string("<assembled>"));
    }
};

QTEST_GUILESS_MAIN(TestGrmMxu)
#include "tst_grm_mxu.moc"
