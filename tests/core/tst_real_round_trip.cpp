// Every importer's real files (written by the tools themselves: tests/data/hta, tests/data/tracelens,
// tests/data/chakra, each with its SOURCE.md) exported to Chrome JSON and imported again: the same tracks,
// slices, flows, device breakdown, critical path and transfers (round_trip.h). The importers' own
// round-trip tests use files made here; these are what users open. (HTA's MTIA trace passes too, in 2 s of
// the 4 s this suite took with it: left out to keep the sanitizer stage short.)
#include "test_support.h"

#include "core/round_trip.h"
#include "import/import.h"

#include <QTest>

#include <string>

using namespace xps;

class TestRealRoundTrip : public QObject
{
    Q_OBJECT

private slots:
    void realProfilesSurviveTheRoundTrip_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("Kineto, CUDA + NCCL (HTA)") << "hta/nccl/nccl_data.json.gz";
        QTest::newRow("Kineto, autograd thread (HTA)") << "hta/sampled_training/rank-0.json.gz";
        QTest::newRow("Kineto, cuda_sync events (HTA)") << "hta/cuda_event_sync/event_sync_trace.json.gz";
        QTest::newRow("Kineto, ROCm MI300X (TraceLens)")
            << "tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz";
        QTest::newRow("Kineto, memsets on H100 (TraceLens)")
            << "tracelens/h100/Falconsai_nsfw_image_detection__1016002.json.gz";
        QTest::newRow("Kineto, HIP graph, no metadata (TraceLens)")
            << "tracelens/vllm_decode_full/graph_execution.json.gz";
        QTest::newRow("XSpace, JAX on MI300X (TraceLens)")
            << "tracelens/jax_conv_minimal_legacy/conv.xplane.pb";
        QTest::newRow("Chakra execution trace") << "chakra/chakra.0.et";
    }

    void realProfilesSurviveTheRoundTrip()
    {
        QFETCH(QString, file);
        auto p = importing::importProfile(test::sourceDir() + "/tests/data/" + file.toStdString());
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QVERIFY(!p->slices.empty());
        const std::string difference = test::roundTripDifference(*p);
        QVERIFY2(difference.empty(), difference.c_str());
    }
};

QTEST_GUILESS_MAIN(TestRealRoundTrip)
#include "tst_real_round_trip.moc"
